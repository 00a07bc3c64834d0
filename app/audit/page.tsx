import type { Metadata } from 'next';
import { AuditList } from '@/components/console/AuditList';
import { RequireSession } from '@/components/console/RequireSession';

export const metadata: Metadata = { title: 'Audit trail' };

export default function AuditPage() {
  return (
    <RequireSession>
      <div className="section-head">
        <h1>Audit trail</h1>
      </div>
      <AuditList />
    </RequireSession>
  );
}

import type { Metadata } from 'next';
import { FormatsPage } from '@/components/console/FormatsPage';
import { RequireSession } from '@/components/console/RequireSession';

export const metadata: Metadata = { title: 'Formats' };

export default function Formats() {
  return (
    <RequireSession>
      <div className="section-head">
        <h1>Formatted tags</h1>
      </div>
      <FormatsPage />
    </RequireSession>
  );
}

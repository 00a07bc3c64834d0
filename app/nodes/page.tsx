import type { Metadata } from 'next';
import { NodesPage } from '@/components/console/NodesPage';
import { RequireSession } from '@/components/console/RequireSession';

export const metadata: Metadata = { title: 'Nodes' };

export default function Nodes() {
  return (
    <RequireSession>
      <NodesPage />
    </RequireSession>
  );
}

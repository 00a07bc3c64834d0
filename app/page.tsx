import { Dashboard } from '@/components/console/Dashboard';
import { RequireSession } from '@/components/console/RequireSession';

export default function Home() {
  return (
    <RequireSession>
      <Dashboard />
    </RequireSession>
  );
}

import { Dashboard } from '@/components/console/Dashboard';
import { RequireSession } from '@/components/console/RequireSession';
import { PrefetchFirstPage } from '@/components/console/TagListControls';

export default function Home() {
  return (
    <>
      <PrefetchFirstPage />
      <RequireSession>
        <Dashboard />
      </RequireSession>
    </>
  );
}

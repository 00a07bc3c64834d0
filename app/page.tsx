import { Suspense } from 'react';
import { Dashboard } from '@/components/console/Dashboard';
import { RequireSession } from '@/components/console/RequireSession';
import { PrefetchFirstPage } from '@/components/console/TagListControls';

export default function Home() {
  return (
    <>
      <PrefetchFirstPage />
      <RequireSession>
        {/* The dashboard reads its list state from the address bar (useSearchParams): client-rendered. */}
        <Suspense>
          <Dashboard />
        </Suspense>
      </RequireSession>
    </>
  );
}

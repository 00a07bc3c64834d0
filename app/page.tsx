import { HydrationBoundary } from '@tanstack/react-query';
import { headers } from 'next/headers';
import { Suspense } from 'react';
import { Dashboard } from '@/components/console/Dashboard';
import { RequireSession } from '@/components/console/RequireSession';
import { PrefetchFirstPage } from '@/components/console/TagListControls';
import { dashboardSeed } from './_server/dashboardSeed';

export const dynamic = 'force-dynamic';

type SearchParams = Record<string, string | string[] | undefined>;

function toSearch(params: SearchParams): URLSearchParams {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) search.append(key, v);
  }
  return search;
}

/** The first page of rows comes with the HTML (dashboardSeed); the client then polls the same query. */
export default async function Home({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const seed = await dashboardSeed(toSearch(await searchParams), (await headers()).get('cookie'));
  return (
    <HydrationBoundary state={seed}>
      <PrefetchFirstPage />
      <RequireSession>
        {/* The list state lives in the address bar (useSearchParams). */}
        <Suspense>
          <Dashboard />
        </Suspense>
      </RequireSession>
    </HydrationBoundary>
  );
}

import { type DehydratedState, QueryClient, dehydrate } from '@tanstack/react-query';
import { FIRST_PAGE, listParamsFromUrl, tagListSearch } from '@/components/console/listParams';
import { tagKeys } from '@/components/console/queryKeys';
import { isLeafError } from '@/lib/errors';
import { processLogger } from '@/lib/runtime';
import { signedInRuntime } from './sessionSeed';
import { tagListAnswer } from './tagList';

/**
 * The dashboard's first rows, put in the HTML: for a signed-in operator, the page of the tag list that the address
 * bar names, as the cache entry the client would fetch first and then polls. Undefined (the page then asks as
 * before) when nobody is signed in, the node is still starting, or the list cannot be read.
 */
export async function dashboardSeed(
  search: URLSearchParams,
  cookie: string | null,
): Promise<DehydratedState | undefined> {
  const runtime = await signedInRuntime(cookie);
  if (runtime === null) return undefined;
  const params = { ...listParamsFromUrl(search.toString()), limit: FIRST_PAGE.limit };
  try {
    const answer = await tagListAnswer(runtime, tagListSearch(params));
    const client = new QueryClient();
    // As the browser would read it off the wire.
    client.setQueryData(tagKeys.page(params), JSON.parse(JSON.stringify(answer)) as unknown);
    return dehydrate(client);
  } catch (error) {
    if (!isLeafError(error)) processLogger().log('warn', 'dashboard_seed_failed', { error: String(error) });
    return undefined;
  }
}

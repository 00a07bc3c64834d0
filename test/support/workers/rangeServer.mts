/**
 * STAND-IN for the range-lease route of issue 10 part 1 (branch `ranges`), which is not on this branch yet:
 * `GET /api/id/segment/{tag}/range?count=N` over a real SqliteStore + SegmentEngine (engine.takeRanges), with
 * the contract's answers — 200 {tag,count,ranges:[{start,end}]} as decimal strings, JSON errors, Bearer token.
 * Once `ranges` is merged, test/integration/client.test.ts should start real servers (tools/harness/node.ts)
 * instead and this file should go.
 *
 * Protocol: parent sends {type:'config', file, token}; worker listens on 127.0.0.1:0 and replies {type:'ready', port}.
 */
import http from 'node:http';
import { isValidBizTag } from '../../../lib/bizTag';
import { isLeafError } from '../../../lib/errors';
import { SegmentEngine } from '../../../lib/segment/engine';
import { SqliteStore } from '../../../lib/store/sqlite';
import { fail, nextMessage, send, type Message } from './ipc.mts';

interface Config extends Message {
  file: string;
  token: string;
}

const MAX_RANGE_COUNT = 10_000_000;

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function refuse(res: http.ServerResponse, status: number, code: string, message: string): void {
  answer(res, status, { error: { code, message } });
}

/** The engine's runs `[first, last, …]`, adjacent ones merged, as the contract's decimal strings. */
function toRanges(bounds: number[]): Array<{ start: string; end: string }> {
  const merged: number[] = [];
  for (let i = 0; i < bounds.length; i += 2) {
    if (merged.length > 0 && merged[merged.length - 1] === (bounds[i] as number) - 1) merged[merged.length - 1] = bounds[i + 1] as number;
    else merged.push(bounds[i] as number, bounds[i + 1] as number);
  }
  const ranges = [];
  for (let i = 0; i < merged.length; i += 2) ranges.push({ start: String(merged[i]), end: String(merged[i + 1]) });
  return ranges;
}

async function main(): Promise<void> {
  const { file, token } = await nextMessage<Config>('config');
  const store = new SqliteStore({ file });
  const engine = new SegmentEngine({ store, refreshIntervalMs: 0 });
  await engine.start();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const route = /^\/api\/id\/segment\/([^/]+)\/range$/.exec(url.pathname);
    if (req.method !== 'GET' || route === null) return refuse(res, 404, 'route_not_found', 'No such route.');
    if (req.headers.authorization !== `Bearer ${token}`) return refuse(res, 401, 'unauthorized', 'A valid Bearer token is required.');
    const tag = decodeURIComponent(route[1] as string);
    if (!isValidBizTag(tag)) return refuse(res, 400, 'invalid_tag', 'Malformed tag.');
    const countText = url.searchParams.get('count') ?? '';
    const count = Number(countText);
    if (!/^[1-9][0-9]{0,7}$/.test(countText) || count > MAX_RANGE_COUNT) return refuse(res, 400, 'invalid_count', 'count is 1 to 10,000,000.');
    Promise.resolve(engine.takeRanges(tag, count)).then(
      (taken) => answer(res, 200, { tag, count, ranges: toRanges(taken.bounds) }),
      (error: unknown) => (isLeafError(error) ? refuse(res, error.status, error.code, error.message) : refuse(res, 500, 'internal_error', 'Internal error.')),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await send({ type: 'ready', port: (server.address() as { port: number }).port });
}

main().catch(fail);

/**
 * The draw loop the client-side workers share (embedded.mts, leafClient.mts): `quota` IDs of `tag` by a seeded mix
 * of `take` (batches of 1..500, 10%), `nextId` (45%) and a tag handle's `next()` (45%), the single IDs in slices of
 * 2,000 with a turn of the event loop after each, so loads land beside the other processes' and the parent can act.
 */
import fs from 'node:fs';
import { rng } from '../../../tools/harness/rng';

/** What leaf-ts/embedded's leaf and LeafClient both offer: a bigint while buffered, else a promise of one. */
export interface IdSource {
  nextId(tag: string): bigint | Promise<bigint>;
  take(tag: string, count: number): bigint[] | Promise<bigint[]>;
  tag(tag: string): { next(): bigint | Promise<bigint> };
}

export interface Draw {
  ids: BigUint64Array;
  /** How many IDs were drawn, counted as they came (the parent checks it against the quota). */
  issued: number;
  ms: number;
}

/** Draws the quota; `afterStep(n)` runs after each batch or slice with the count so far. */
export async function drawMixed(
  source: IdSource,
  tag: string,
  quota: number,
  seed: number,
  afterStep?: (n: number) => Promise<void>,
): Promise<Draw> {
  const handle = source.tag(tag);
  const random = rng(seed);
  const ids = new BigUint64Array(quota);
  const started = Date.now();
  let n = 0;
  while (n < quota) {
    const pick = random();
    if (pick < 0.1) {
      const batch = Math.min(quota - n, 1 + Math.floor(random() * 500));
      const taken = source.take(tag, batch);
      for (const id of Array.isArray(taken) ? taken : await taken) ids[n++] = id;
    } else {
      const end = Math.min(quota, n + 2_000);
      while (n < end) {
        const id = pick < 0.55 ? source.nextId(tag) : handle.next();
        ids[n++] = typeof id === 'bigint' ? id : await id;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await afterStep?.(n);
  }
  return { ids, issued: n, ms: Date.now() - started };
}

/** The IDs as raw BigUint64 (native byte order), as test/support/idFiles.ts reads them. */
export function writeIds(outFile: string, ids: BigUint64Array): void {
  fs.writeFileSync(outFile, new Uint8Array(ids.buffer));
}

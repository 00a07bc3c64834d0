import fs from 'node:fs';
import { expect } from 'vitest';

/**
 * The IDs client workers wrote (raw BigUint64, `perFile` each), all in one array sorted ascending — the compact
 * way to check millions of IDs for repeats.
 */
export function sortedIdFiles(files: string[], perFile: number): BigUint64Array {
  const all = new BigUint64Array(files.length * perFile);
  files.forEach((file, i) => {
    const bytes = fs.readFileSync(file);
    expect(bytes.byteLength).toBe(perFile * 8);
    all.set(new BigUint64Array(new Uint8Array(bytes).buffer), i * perFile);
  });
  return all.sort();
}

/** How many IDs of a sorted array equal the one before. */
export function repeatsInSorted(sorted: BigUint64Array): number {
  let repeats = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) repeats++;
  return repeats;
}

/**
 * The opaque key rotated while the fleet serves (docs/operations.md#rotating-the-opaque-key), once per seams run:
 * every later start of a node or package takes a new key with the old one retired; the first node of each region is
 * restarted at once (moving the fleet's record), and a tag created then through it is opaque under the new key. The
 * other processes keep the old key until a fault restarts them. The checker reads each opaque ID back under the key
 * its tag records: an ID permuted under another key reads back as nonsense.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Fleet, Region } from './fleet';
import type { Op } from './history';

export const ROTATED_KEY = 'seams-rotated-opaque-key-fedcba9876543210-xyz';
/** Created at the rotation, so under the new key. */
export const ROTATED_TAG = 'o3';

type Admin = (
  region: Region,
  method: string,
  target: string,
  body?: unknown,
) => Promise<{ status: number; text: string }>;

export async function rotateOpaqueKey(o: {
  fleet: Fleet;
  /** The environment every later start takes (changed in place). */
  nodeEnv: Record<string, string>;
  runDir: string;
  admin: Admin;
  ops: Op[];
  /** The region's live tags, as the schedule sees them: the new tag joins them. */
  live: Array<Set<string>>;
  /** `region tag` → the key fingerprint the new tag was created under (it keeps it through deletes). */
  keyIds: Record<string, string>;
}): Promise<void> {
  const startAt = performance.now();
  const file = path.join(o.runDir, 'retired-opaque-keys');
  fs.writeFileSync(file, `${o.nodeEnv.LEAF_OPAQUE_KEY}\n`, { mode: 0o600 });
  o.nodeEnv.LEAF_OPAQUE_RETIRED_KEYS_FILE = file;
  o.nodeEnv.LEAF_OPAQUE_KEY = ROTATED_KEY;
  const outcomes: string[] = [];
  for (const region of o.fleet.regions) {
    const first = region.nodes[0]!;
    await o.fleet.term(first);
    await o.fleet.startService(first, region);
    const r = await o.admin(region, 'POST', '/api/admin/tags', { bizTag: ROTATED_TAG, step: 20, encoding: 'opaque' });
    if (r.status === 201) {
      o.live[region.index]!.add(ROTATED_TAG);
      const keyId = (JSON.parse(r.text) as { tag: { keyId?: string | null } }).tag.keyId;
      if (typeof keyId === 'string') o.keyIds[`${region.index} ${ROTATED_TAG}`] = keyId;
    }
    outcomes.push(`region ${region.index}: ${first.name} restarted, ${ROTATED_TAG} ${r.status}`);
  }
  o.ops.push({
    kind: 'rotate',
    region: 0,
    target: 'opaque key',
    startAt,
    endAt: performance.now(),
    outcome: outcomes.join('; '),
  });
}

/**
 * Each opaque tag's key fingerprint as its region's database records it (`region tag` → keyId), added to `createdUnder`
 * (what creations answered: a tag deleted since is not found here, and keeps the key it was created under).
 */
export async function recordedKeyIds(
  fleet: Fleet,
  admin: Admin,
  tags: readonly string[],
  createdUnder: Record<string, string>,
): Promise<Record<string, string>> {
  const keyIds: Record<string, string> = { ...createdUnder };
  for (const region of fleet.regions) {
    for (const tag of tags) {
      const r = await admin(region, 'GET', `/api/admin/tags/${encodeURIComponent(tag)}`);
      if (r.status !== 200) continue; // deleted: what its creation answered, if the run made it
      const keyId = (JSON.parse(r.text) as { tag: { keyId?: string | null } }).tag.keyId;
      if (typeof keyId === 'string') keyIds[`${region.index} ${tag}`] = keyId;
    }
  }
  return keyIds;
}

/**
 * A database outage longer than the nodes' buffers, whatever the database is: wait until every node holds a
 * segment, take the database down, watch each node serve from memory and then answer 503, drain what is left (of
 * the segment tag and of the formatted tag's period), bring the database back, and require every node to serve
 * segment, snowflake and formatted IDs again by itself within the bound. The times land in `run.outage` for the
 * report.
 */
import { fmt } from './config';
import type { ChaosRun } from './context';
import { firstOkAfter } from './checks';
import { engineStats } from './engineStats';
import { now } from './load';
import { FORMATTED_KINDS, type Kind, type Recorder, SEGMENT_KINDS, SNOWFLAKE_KINDS } from './record';

export interface OutageActions {
  /** Takes the database down; resolves once it is down. */
  stop(): Promise<void>;
  /** Brings it back; resolves once it serves again. */
  start(): Promise<void>;
  /** What to call it in progress lines: "mariadbd", "the Galera cluster". */
  what: string;
}

export async function outage(run: ChaosRun, db: OutageActions): Promise<void> {
  const { size, say, violate, sleep, nodes, rec } = run;
  // A node restarted a moment ago may not hold a segment yet: the outage starts once every node has one.
  let buffers = (await Promise.all(nodes.map((n) => engineStats(n.port)))).map((e) => e.buffered);
  for (const waitUntil = now() + 10_000; buffers.some((b) => b <= 0) && now() < waitUntil;) {
    await sleep(250);
    buffers = (await Promise.all(nodes.map((n) => engineStats(n.port)))).map((e) => e.buffered);
  }
  // Likewise formatted IDs: a node restarted just before holds none yet. Wait until each has answered formatted
  // requests without a failure for a while (its period's sequence loaded and refilled since its start).
  for (const waitUntil = now() + 10_000; nodes.some((_, i) => !servingFormatted(rec, i, now())) && now() < waitUntil;)
    await sleep(250);
  say(`buffers before the outage: ${nodes.map((n, i) => `${n.name}=${buffers[i]}`).join(' ')} IDs`);
  const stopAt = now();
  await db.stop();
  const downAt = now();
  say(`${db.what} down (${fmt(downAt - stopAt)}s to stop); nodes serve from their buffers`);
  const exhaustedAt: Array<number | null> = nodes.map(() => null);
  const formattedExhaustedAt: Array<number | null> = nodes.map(() => null);
  let scanned = rec.fails.length;
  const scan = () => {
    for (const f of rec.fails.slice(scanned)) {
      const node = nodes[f.node];
      if (f.status !== 503 || f.sendT < downAt || node === undefined) continue;
      if (SEGMENT_KINDS.has(f.kind) && exhaustedAt[f.node] === null) {
        exhaustedAt[f.node] = f.recvT;
        say(`${node.name}: buffers used up, answering 503 ${f.code} (${fmt(f.recvT - downAt)}s into the outage)`);
      } else if (FORMATTED_KINDS.has(f.kind) && formattedExhaustedAt[f.node] === null) {
        formattedExhaustedAt[f.node] = f.recvT;
        say(
          `${node.name}: formatted buffers used up, answering 503 ${f.code} (${fmt(f.recvT - downAt)}s into the outage)`,
        );
      }
    }
    scanned = rec.fails.length;
  };
  let drained = false;
  for (;;) {
    await sleep(200);
    scan();
    const elapsed = now() - downAt;
    // Let plain client traffic eat the buffers for 2 s, then drain the rest in batches of 10,000.
    if (!drained && elapsed >= 2_000) {
      drained = true;
      nodes.forEach((_, i) => void run.load?.drain(i, () => exhaustedAt[i] !== null));
      nodes.forEach((_, i) => void run.load?.drain(i, () => formattedExhaustedAt[i] !== null, true));
    }
    const all = exhaustedAt.every((t) => t !== null);
    const lastExhausted = Math.max(...exhaustedAt.map((t) => t ?? Infinity));
    if (all && elapsed >= size.outageMinS * 1000 && now() - lastExhausted >= 2_000) break;
    if (elapsed >= size.outageMaxS * 1000) {
      nodes.forEach((n, i) => {
        if (exhaustedAt[i] === null)
          violate(
            `${n.name} still served segment IDs after ${size.outageMaxS}s of outage: the outage did not outlast its buffers`,
          );
      });
      break;
    }
  }
  const startAt = now();
  await db.start();
  const backAt = now();
  run.outage = { stopAt, downAt, startAt, backAt };
  say(`${db.what} back after ${fmt(startAt - downAt)}s down (ready in ${fmt(backAt - startAt)}s)`);
  // Recovery: each node must serve segment, snowflake and formatted IDs again, by itself.
  const bound = backAt + size.recoveryBoundS * 1000;
  const kinds: ReadonlyArray<ReadonlySet<Kind>> = [SEGMENT_KINDS, SNOWFLAKE_KINDS, FORMATTED_KINDS];
  for (;;) {
    const pending = nodes.filter((_, i) => kinds.some((k) => firstOkAfter(rec, i, startAt, k) === null));
    if (pending.length === 0) break;
    if (now() > bound) {
      for (const n of pending)
        violate(`${n.name} did not recover within ${size.recoveryBoundS}s of ${db.what} being back`);
      break;
    }
    await sleep(100);
  }
}

/**
 * How long a node must have answered formatted requests without a failure before the outage starts: long enough for
 * a node restarted a moment ago to grow its period claims past the small first step (seen: a node restarted 1.2 s
 * before the outage held its first claim of 50, used up before the database went down).
 */
const FORMATTED_SETTLE_MS = 3_000;

/**
 * Node i has answered formatted requests for FORMATTED_SETTLE_MS: one in the last second, one at least that long ago
 * (a killed node answers nothing for seconds, so it was up in between), and no failure since.
 */
function servingFormatted(rec: Recorder, i: number, at: number): boolean {
  const mine = (r: { node: number; kind: Kind }) => r.node === i && FORMATTED_KINDS.has(r.kind);
  const last = <T extends { node: number; kind: Kind; recvT: number }>(list: T[], before = Infinity): T | undefined => {
    for (let k = list.length - 1; k >= 0; k--) {
      const r = list[k];
      if (r !== undefined && mine(r) && r.recvT <= before) return r;
    }
    return undefined;
  };
  const ok = last(rec.ok);
  const settledOk = last(rec.ok, at - FORMATTED_SETTLE_MS);
  const failed = last(rec.fails);
  return (
    ok !== undefined &&
    at - ok.recvT < 1_000 &&
    settledOk !== undefined &&
    at - settledOk.recvT < FORMATTED_SETTLE_MS + 1_000 &&
    (failed === undefined || at - failed.recvT >= FORMATTED_SETTLE_MS)
  );
}

/**
 * One snowflake "node" of test/serial/snowflake.test.ts: its own store (MySQL, PostgreSQL or SQLite) and its own
 * SnowflakeNode, driven by jobs over IPC. Every job is {type:'job', kind, ...} and gets exactly one reply.
 *
 *   open   {dialect, url|file}                 → opened            opens the store (runs migrations)
 *   start  {nodeId, epochMs, leaseMs, at}      → started           waits until `at`, node.start(); worker id, instance id
 *   first  {timeoutMs}                         → first             retries nextId until it serves (a fence may be ahead)
 *   issue  {count, nextRatio, takeMax, outFile, seed} → issued     count IDs, a mix of nextId and take(n), to a file
 *   stream {outFile, perTick}                  → streaming         issues perTick IDs every ~1 ms in the background,
 *                                                                  each batch written (BigInt64, native order) before
 *                                                                  the next await, so a SIGKILL loses nothing reported
 *   endStream                                  → streamed          stops the stream; counts, errors, state changes
 *   takeAndStop {count, stopAfterMs, outFile}  → stoppedDuringTake, then takeDone
 *                                                                  node.stop() while a take(count) is in flight
 *   status                                     → status            node.status()
 *   stop                                       → stopped           node.stop() (graceful: releases the lease)
 *   close                                      → closed            store.close()
 *   exit                                       → exited            the process ends
 *
 * IDs cross the channel as decimal strings; files hold raw BigInt64 values.
 */
import { type WorkerDialect, openWorkerStore } from './store.mts';
import fs from 'node:fs';
import { isLeafError } from '../../../lib/errors';
import { decompose } from '../../../lib/snowflake/layout';
import { SnowflakeNode } from '../../../lib/snowflake/node';
import type { LeafStore } from '../../../lib/store/leafStore';
import { atTime, fail, finish, nextMessage, send, type Message } from './ipc.mts';
import { rng } from '../../../tools/harness/rng';

type Job = Message & Record<string, unknown> & { kind: string };

let store: Pick<LeafStore, 'workers' | 'close'> | null = null;
let node: SnowflakeNode | null = null;

function codeOf(error: unknown): string {
  return isLeafError(error) ? error.code : `non_leaf:${(error as Error)?.message ?? String(error)}`;
}

function requireNode(): SnowflakeNode {
  if (node === null) throw new Error('no node: send a start job first');
  return node;
}

interface StreamState {
  stop: boolean;
  done: Promise<void>;
  issued: number;
  errors: Record<string, number>;
  /** Every change of what nextId gives: a worker id ("w:5") or an error code, with the time it was first seen. */
  changes: Array<{ at: number; state: string }>;
}
let stream: StreamState | null = null;

function startStream(outFile: string, perTick: number): StreamState {
  const n = requireNode();
  const fd = fs.openSync(outFile, 'w');
  const batch = new BigInt64Array(perTick);
  const state: StreamState = { stop: false, done: Promise.resolve(), issued: 0, errors: {}, changes: [] };
  let last = '';
  const note = (s: string) => {
    if (s !== last) {
      state.changes.push({ at: Date.now(), state: s });
      last = s;
    }
  };
  state.done = (async () => {
    try {
      while (!state.stop) {
        let k = 0;
        for (let i = 0; i < perTick; i++) {
          try {
            const r = n.nextId();
            const id = typeof r === 'bigint' ? r : await r;
            batch[k++] = id;
            note(`w:${decompose(id, n.epochMs).workerId}`);
          } catch (error) {
            const code = codeOf(error);
            state.errors[code] = (state.errors[code] ?? 0) + 1;
            note(code);
            break;
          }
        }
        if (k > 0) fs.writeSync(fd, new Uint8Array(batch.buffer, 0, k * 8));
        state.issued += k;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } finally {
      fs.closeSync(fd);
    }
  })();
  return state;
}

async function handle(job: Job): Promise<Message | null> {
  switch (job.kind) {
    case 'open': {
      const t = Date.now();
      store = await openWorkerStore(job.dialect as WorkerDialect, { url: job.url, file: job.file }, 2);
      return { type: 'opened', ms: Date.now() - t };
    }
    case 'start': {
      if (store === null) throw new Error('no store: send an open job first');
      node = new SnowflakeNode({
        store: store.workers,
        nodeId: job.nodeId as string,
        epochMs: job.epochMs as number,
        leaseMs: job.leaseMs as number,
      });
      await atTime(job.at as number);
      const t = Date.now();
      await node.start();
      return {
        type: 'started',
        workerId: node.workerId,
        instanceId: node.instanceId,
        status: node.status(),
        ms: Date.now() - t,
        at: t,
      };
    }
    case 'first': {
      const n = requireNode();
      const t = Date.now();
      const refusals: Record<string, number> = {};
      for (;;) {
        try {
          const r = n.nextId();
          const id = typeof r === 'bigint' ? r : await r;
          return { type: 'first', id: id.toString(), ms: Date.now() - t, refusals, workerId: n.workerId };
        } catch (error) {
          const code = codeOf(error);
          refusals[code] = (refusals[code] ?? 0) + 1;
          if (Date.now() - t > (job.timeoutMs as number)) {
            return { type: 'first', id: null, ms: Date.now() - t, refusals, workerId: n.workerId, lastError: code };
          }
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
    }
    case 'issue': {
      const n = requireNode();
      const count = job.count as number;
      const random = rng(job.seed as number);
      const out = new BigInt64Array(count);
      let issued = 0;
      let nextCalls = 0;
      let takeCalls = 0;
      let yieldedAt = 0;
      const t = Date.now();
      while (issued < count) {
        if (random() < (job.nextRatio as number)) {
          const r = n.nextId();
          out[issued++] = typeof r === 'bigint' ? r : await r;
          nextCalls++;
        } else {
          const k = Math.min(1 + Math.floor(random() * (job.takeMax as number)), count - issued);
          const ids = await n.take(k);
          if (ids.length !== k) throw new Error(`take(${k}) returned ${ids.length} IDs`);
          for (const id of ids) out[issued++] = id;
          takeCalls++;
        }
        // Let the lease timer run now and then, as a server's event loop would.
        if (issued - yieldedAt >= 10_000) {
          yieldedAt = issued;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      const ms = Date.now() - t;
      fs.writeFileSync(job.outFile as string, new Uint8Array(out.buffer));
      return { type: 'issued', issued, nextCalls, takeCalls, ms, workerId: n.workerId };
    }
    case 'stream': {
      if (stream !== null) throw new Error('a stream is already running');
      stream = startStream(job.outFile as string, job.perTick as number);
      return { type: 'streaming' };
    }
    case 'endStream': {
      const s = stream;
      if (s === null) throw new Error('no stream running');
      s.stop = true;
      await s.done;
      stream = null;
      return {
        type: 'streamed',
        issued: s.issued,
        errors: s.errors,
        changes: s.changes,
        status: node?.status() ?? null,
      };
    }
    case 'takeAndStop': {
      // A take(count) in flight when node.stop() is called (e.g. a graceful shutdown or reload during a request).
      // Two callers in flight: node.take(count) itself (must fail once stopped, not finish past the fence), and a
      // loop of nextId calls over the same generator path that records every ID it was actually handed.
      const n = requireNode();
      const count = job.count as number;
      const ids: bigint[] = [];
      let error: string | null = null;
      const looping = (async () => {
        try {
          for (let i = 0; i < count; i++) {
            const r = n.nextId();
            ids.push(typeof r === 'bigint' ? r : await r);
            if (i % 4096 === 0) await new Promise((resolve) => setImmediate(resolve));
          }
        } catch (e) {
          error = codeOf(e);
        }
      })();
      // Started after the loop's first (synchronous) ID, so the loop has always been handed some before the stop.
      const taking = n.take(count).then(
        (all) => ({ takeError: null as string | null, takeIssued: all.length }),
        (e: unknown) => ({ takeError: codeOf(e), takeIssued: 0 }),
      );
      await new Promise((resolve) => setTimeout(resolve, job.stopAfterMs as number));
      const stopStart = Date.now();
      await n.stop();
      const stoppedAt = Date.now();
      await send({ type: 'stoppedDuringTake', stopStart, stoppedAt });
      await looping;
      const { takeError, takeIssued } = await taking;
      fs.writeFileSync(job.outFile as string, new Uint8Array(BigInt64Array.from(ids).buffer));
      return { type: 'takeDone', issued: ids.length, error, takeError, takeIssued, doneAt: Date.now() };
    }
    case 'status':
      return { type: 'status', status: requireNode().status(), workerId: node?.workerId ?? null };
    case 'stop': {
      const n = requireNode();
      const last = n.status().lastTimestamp;
      await n.stop();
      return { type: 'stopped', lastTimestamp: last };
    }
    case 'close':
      await store?.close();
      store = null;
      node = null;
      return { type: 'closed' };
    case 'exit':
      return null;
    default:
      throw new Error(`unknown job ${job.kind}`);
  }
}

async function main(): Promise<void> {
  await send({ type: 'ready', pid: process.pid });
  for (;;) {
    const job = await nextMessage<Job>('job');
    const reply = await handle(job);
    if (reply === null) break;
    await send(reply);
  }
  await finish({ type: 'exited' });
}

main().catch(fail);

/**
 * One "node" of the multi-process disjointness test: its own store and SegmentEngine, hammering one tag with a mix
 * of engine.nextId(tag) and engine.takeIds(tag, n). Every issued ID is streamed to `outFile` as raw Float64 (native byte
 * order), in issue order. Now and then the engine is thrown away and a new one built over the same store (a node
 * restart: step back to the DB step, the old buffers' remainder becomes a gap), which makes many more segment loads.
 *
 * Protocol: parent sends {type:'config', ...}; worker opens the store, replies {type:'ready'}; parent sends
 * {type:'go', at}; worker runs until it issued `quota` IDs, then replies {type:'done', ...} and exits.
 */
import { type WorkerDialect, openWorkerStore } from './store.mts';
import fs from 'node:fs';
import { SegmentEngine } from '../../../lib/segment/engine';
import type { Allocation } from '../../../lib/segment/segmentSource';
import type { SegmentSource } from '../../../lib/segment/segmentSource';
import { atTime, fail, finish, nextMessage, send, type Message } from './ipc.mts';
import { rng } from '../../../tools/harness/rng';

interface Config extends Message {
  dialect: WorkerDialect;
  url?: string;
  file?: string;
  tag: string;
  quota: number;
  outFile: string;
  seed: number;
  /** Probability that a call is next() rather than take(). */
  nextRatio: number;
  takeMax: number;
  /** Restart the engine after a random number of issued IDs in [restartMin, restartMax]; 0 = never. */
  restartMin: number;
  restartMax: number;
}

/**
 * Instrumentation, not a mock: a Proxy that passes every call through to the real store's tags and records what
 * `allocate` claimed. (A Proxy, so the wrapper keeps up with whatever else the port grows.)
 */
interface Recording {
  store: SegmentSource;
  allocations: Array<[maxId: number, step: number]>;
  failures: number;
  inFlight: number;
}

function recording(inner: SegmentSource): Recording {
  const rec: Recording = { store: inner, allocations: [], failures: 0, inFlight: 0 };
  const allocate = async (bizTag: string, step?: number): Promise<Allocation> => {
    rec.inFlight++;
    try {
      const a = await inner.allocate(bizTag, step);
      rec.allocations.push([Number(a.maxId), a.step]);
      return a;
    } catch (error) {
      rec.failures++;
      throw error;
    } finally {
      rec.inFlight--;
    }
  };
  rec.store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'allocate') return allocate;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return rec;
}

class IdWriter {
  private readonly fd: number;
  private readonly chunk = new Float64Array(1 << 16);
  private n = 0;
  constructor(file: string) {
    this.fd = fs.openSync(file, 'w');
  }
  push(id: number): void {
    this.chunk[this.n++] = id;
    if (this.n === this.chunk.length) this.flush();
  }
  flush(): void {
    if (this.n > 0) fs.writeSync(this.fd, new Uint8Array(this.chunk.buffer, 0, this.n * 8));
    this.n = 0;
  }
  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

async function main(): Promise<void> {
  const cfg = await nextMessage<Config>('config');
  const db = await openWorkerStore(cfg.dialect, cfg, 4);
  const rec = recording(db.tags);
  const store = rec.store;
  const random = rng(cfg.seed);
  const randInt = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));

  const newEngine = async () => {
    // loadWaitMs is generous: this test is about correctness under contention, not latency.
    const engine = new SegmentEngine({ store, refreshIntervalMs: 0, loadWaitMs: 15_000 });
    await engine.start();
    return engine;
  };
  /** Waits for any in-flight load (it may still claim a segment), then counts what the engine will never issue. */
  const retire = async (engine: SegmentEngine): Promise<number> => {
    // The store call returning is not enough: the engine installs the segment in a later microtask and clears
    // `loading` only after that. So wait for both, across a macrotask turn.
    const deadline = Date.now() + 15_000;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (rec.inFlight === 0 && engine.snapshot(cfg.tag)?.loading !== true) break;
      if (Date.now() > deadline) throw new Error('a segment load did not settle within 15 s');
    }
    engine.stop();
    const s = engine.snapshot(cfg.tag);
    if (s === undefined) return 0;
    return (s.current?.remaining ?? 0) + (s.pending?.step ?? 0);
  };

  await send({ type: 'ready' });
  const go = await nextMessage<Message & { at: number }>('go');
  await atTime(go.at);
  const startedAt = Date.now();

  const out = new IdWriter(cfg.outFile);
  let engine = await newEngine();
  const nextRestart = (issued: number) =>
    cfg.restartMax > 0 ? issued + randInt(cfg.restartMin, cfg.restartMax) : Infinity;
  let restartAt = nextRestart(0);
  let issued = 0;
  let unissued = 0;
  let restarts = 0;
  let nextCalls = 0;
  let takeCalls = 0;
  while (issued < cfg.quota) {
    if (issued >= restartAt) {
      unissued += await retire(engine);
      engine = await newEngine();
      restarts++;
      restartAt = nextRestart(issued);
    }
    if (random() < cfg.nextRatio) {
      out.push(Number(await engine.nextId(cfg.tag)));
      issued++;
      nextCalls++;
    } else {
      const n = Math.min(randInt(1, cfg.takeMax), cfg.quota - issued);
      const ids = await engine.takeIds(cfg.tag, n);
      if (ids.length !== n) throw new Error(`take(${n}) returned ${ids.length} IDs`);
      for (const id of ids) out.push(Number(id));
      issued += n;
      takeCalls++;
    }
  }
  unissued += await retire(engine);
  out.close();
  await db.close();
  await finish({
    type: 'done',
    issued,
    unissued,
    allocations: rec.allocations,
    failedAllocations: rec.failures,
    restarts,
    nextCalls,
    takeCalls,
    ms: Date.now() - startedAt,
  });
}

main().catch(fail);

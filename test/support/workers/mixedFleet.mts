/**
 * One node of the mixed-fleet test (test/serial/mixedFleet.test.ts): either a leaf-ts node (its own MysqlStore
 * and SegmentEngine, the engine rebuilt now and then like a restarted node, so there are many claims) or a Java
 * Leaf node (tools/leafJava/claimer.ts, claiming exactly as Leaf's Java server). It hands out `quota` IDs round the
 * tags, spread over about `paceMs`, and streams `[tag index, id]` pairs as raw Float64 to `outFile`.
 *
 * A claim the engine's regression guard refuses is counted (`refused`) and the node carries on.
 *
 * Protocol: {type:'config'} → {type:'ready'} → {type:'go', at} → {type:'done', issued, claims, refused}.
 */
import fs from 'node:fs';
import { SegmentEngine } from '../../../lib/segment/engine';
import { MysqlStore } from '../../../lib/store/mysql';
import { LeafJavaClaimer } from '../../../tools/leafJava/claimer';
import { rng } from '../../../tools/harness/rng';
import { clientGet } from '../clientIds';
import { atTime, fail, finish, nextMessage, send, type Message } from './ipc.mts';

interface Config extends Message {
  /** `leaf-ts-http`: a client of a real leaf-ts server (server.ts) at `baseUrl`, through its `?count=` route. */
  role: 'leaf-ts' | 'leaf-java' | 'leaf-ts-http';
  url: string;
  baseUrl?: string;
  tags: string[];
  quota: number;
  paceMs: number;
  /** leaf-ts: a new engine after about this many IDs (a node restart: the step starts again from the DB's). */
  restartEvery: number;
  outFile: string;
  seed: number;
}

/** Hands out IDs of one tag; `take` may return fewer than asked only never: exactly n. */
interface Node {
  take(tag: string, n: number): Promise<number[]>;
  restart(): Promise<void>;
  claims(): number;
  close(): Promise<void>;
}

async function leafTsNode(url: string): Promise<Node> {
  const store = await MysqlStore.open({ url, connectionLimit: 4 });
  let claims = 0;
  const counting = new Proxy(store.tags, {
    get(target, prop) {
      if (prop === 'allocate') {
        return async (bizTag: string, step?: number) => {
          const a = await target.allocate(bizTag, step);
          claims++;
          return a;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const build = async () => {
    const engine = new SegmentEngine({ store: counting, refreshIntervalMs: 0, loadWaitMs: 15_000 });
    await engine.start();
    return engine;
  };
  let engine = await build();
  return {
    take: async (tag, n) => (await engine.takeIds(tag, n)).map(Number),
    restart: async () => {
      engine.stop();
      engine = await build();
    },
    claims: () => claims,
    close: () => store.close(),
  };
}

function javaNode(url: string): Node {
  const claimer = new LeafJavaClaimer({ url });
  return {
    take: async (tag, n) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(await claimer.get(tag));
      return ids;
    },
    restart: async () => undefined, // a Java node keeps its buffers: its step doubles as Leaf's does
    claims: () => claimer.claims.length,
    close: () => claimer.close(),
  };
}

function httpNode(baseUrl: string): Node {
  return {
    take: async (tag, n) => {
      // As a client asks (retryable answers retried); the regression guard's 503 comes back with its code.
      const r = await clientGet(`${baseUrl}/api/id/segment/${tag}?count=${n}`);
      const body = JSON.parse(r.text) as { ids?: string[]; error?: { code: string; message: string } };
      if (r.status !== 200 || body.ids === undefined)
        throw Object.assign(new Error(`HTTP ${r.status}: ${body.error?.message}`), { code: body.error?.code });
      return body.ids.map(Number);
    },
    restart: async () => undefined,
    claims: () => 0, // the server's own; not counted here
    close: async () => undefined,
  };
}

async function main(): Promise<void> {
  const cfg = await nextMessage<Config>('config');
  const node =
    cfg.role === 'leaf-ts'
      ? await leafTsNode(cfg.url)
      : cfg.role === 'leaf-ts-http'
        ? httpNode(cfg.baseUrl as string)
        : javaNode(cfg.url);
  const random = rng(cfg.seed);
  await send({ type: 'ready' });
  const go = await nextMessage<Message & { at: number }>('go');
  await atTime(go.at);
  const started = Date.now();
  const fd = fs.openSync(cfg.outFile, 'w');
  const chunk = new Float64Array(1 << 16);
  let filled = 0;
  const flush = () => {
    fs.writeSync(fd, new Uint8Array(chunk.buffer, 0, filled * 8));
    filled = 0;
  };
  let issued = 0;
  /** Claims the engine's regression guard refused (a segment at or below an ID this node already claimed). */
  let refused = 0;
  let restartAt = cfg.restartEvery;
  while (issued < cfg.quota) {
    const t = Math.floor(random() * cfg.tags.length);
    const n = Math.min(cfg.quota - issued, 1 + Math.floor(random() * 200));
    let ids: number[];
    try {
      ids = await node.take(cfg.tags[t]!, n);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'segment_regressed') throw error;
      refused++;
      continue;
    }
    for (const id of ids) {
      if (filled + 2 > chunk.length) flush();
      chunk[filled++] = t;
      chunk[filled++] = id;
    }
    issued += n;
    if (cfg.role === 'leaf-ts' && issued >= restartAt) {
      await node.restart();
      restartAt += cfg.restartEvery;
    }
    // Pace: never ahead of quota spread over paceMs, so the nodes' claims interleave (and meet the switches).
    const ahead = (issued / cfg.quota) * cfg.paceMs - (Date.now() - started);
    await new Promise((resolve) => (ahead > 1 ? setTimeout(resolve, ahead) : setImmediate(resolve)));
  }
  flush();
  fs.closeSync(fd);
  const claims = node.claims();
  await node.close();
  await finish({ type: 'done', issued, claims, refused, ms: Date.now() - started });
}

main().catch(fail);

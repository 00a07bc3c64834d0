/**
 * Bounded HTTP load against the nodes: paced client loops (keep-alive agents, one request in flight per loop,
 * every request with a client timeout) over segment, snowflake and formatted routes, a paced "churn" loop per node
 * taking batches of 10,000 (so segments are used up and reloaded every few seconds even once the dynamic step has
 * grown), outage "drain" loops (segment and formatted), and a health prober. Every answer goes to the Recorder.
 */
import http from 'node:http';
import { sleep } from '../harness';
import { parseFormatted } from './formatted';
import type { LeafNode } from './node';
import { FORMATTED_KINDS, type Kind, type Recorder } from './record';

export const now = (): number => performance.timeOrigin + performance.now();

type Answer = { status: number; contentType: string; body: string; servedBy?: string } | { status: 0; code: string };

function get(agent: http.Agent, port: number, path: string, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const done = (a: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(a);
    };
    const req = http.request({ host: '127.0.0.1', port, path, agent, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        const servedBy = res.headers[SERVED_BY];
        done({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body,
          servedBy: typeof servedBy === 'string' ? servedBy : undefined,
        });
      });
      res.on('error', (e: NodeJS.ErrnoException) =>
        done({ status: 0, code: timedOut ? 'timeout' : (e.code ?? e.message) }),
      );
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('client timeout'));
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) =>
      done({ status: 0, code: timedOut ? 'timeout' : (e.code ?? e.message) }),
    );
    req.end();
  });
}

const SEG_ID = /^[1-9][0-9]{0,15}$/;
const SNOW_ID = /^[1-9][0-9]{0,18}$/;

/** The header a load balancer in front of the nodes adds with the name of the node that answered (chaos --lb). */
export const SERVED_BY = 'x-served-by';

/** Where requests go: a leaf-ts node, or a load balancer in front of them (always up). */
export type LoadTarget = Pick<LeafNode, 'name' | 'port' | 'state' | 'life' | 'wasDownDuring'>;

export interface LoadOptions {
  targets: LoadTarget[];
  /**
   * Behind a load balancer: the node (index into the run's nodes, and its life) whose name the answer's
   * SERVED_BY header carries; null when the balancer answered itself. Without it, an answer is the target's.
   */
  servedBy?: (name: string | undefined) => { node: number; life: number } | null;
  recorder: Recorder;
  tag: string;
  /** The formatted tag (its IDs must match config's FORMAT). */
  formatTag: string;
  timeoutMs: number;
  random: () => number;
}

export interface Counters {
  sent: number;
  ok: number;
  s503: number;
  other: number;
  connErrors: number;
  timeouts: number;
}

export interface HealthFailure {
  node: string;
  at: number;
  status: number;
  detail: string;
}

export class Load {
  readonly counters: Counters = { sent: 0, ok: 0, s503: 0, other: 0, connErrors: 0, timeouts: 0 };
  readonly health = { probes: 0, ok: 0, degraded: 0, failures: [] as HealthFailure[] };
  private readonly agents: http.Agent[];
  private readonly loops: Promise<void>[] = [];
  private stopped = false;
  private readonly o: LoadOptions;

  constructor(options: LoadOptions) {
    this.o = options;
    this.agents = options.targets.map(() => new http.Agent({ keepAlive: true, maxSockets: 64 }));
  }

  /**
   * One request to target `i`, parsed and recorded (as the node's that answered it, behind a balancer). Returns the
   * HTTP status (0: connection error or timeout).
   */
  async request(target: number, kind: Kind, path: string, expectCount = 0): Promise<number> {
    const node = this.o.targets[target];
    const agent = this.agents[target];
    if (node === undefined || agent === undefined)
      throw new Error(`no load target ${target} (${this.o.targets.length} targets)`);
    let i = target;
    let life = node.life;
    const rec = this.o.recorder;
    const c = this.counters;
    c.sent++;
    const sendT = now();
    const a = await get(agent, node.port, path, this.o.timeoutMs);
    const recvT = now();
    if (this.o.servedBy !== undefined) {
      const who = this.o.servedBy('servedBy' in a ? a.servedBy : undefined);
      i = who?.node ?? -1;
      life = who?.life ?? 0;
    }
    if (a.status === 0) {
      const code = (a as { code: string }).code;
      if (code === 'timeout') c.timeouts++;
      else c.connErrors++;
      rec.addFail({
        kind,
        node: i,
        life,
        sendT,
        recvT,
        status: 0,
        code,
        jsonOk: false,
        body: '',
        nodeWasDown: node.wasDownDuring(sendT, recvT),
      });
      return 0;
    }
    const { status, contentType, body } = a as { status: number; contentType: string; body: string };
    if (status === 200) {
      c.ok++;
      try {
        this.parseOk(kind, i, life, sendT, recvT, contentType, body, expectCount);
      } catch (error) {
        rec.bad(`${node.name} ${path}: malformed 200 (${(error as Error).message}): ${body.slice(0, 120)}`);
      }
      return 200;
    }
    if (status === 503) c.s503++;
    else c.other++;
    let code = '';
    let jsonOk = false;
    try {
      const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
      if (typeof parsed.error?.code === 'string' && typeof parsed.error.message === 'string') {
        code = parsed.error.code;
        jsonOk = /^application\/json/.test(contentType);
      }
    } catch {
      // not JSON: jsonOk stays false
    }
    rec.addFail({
      kind,
      node: i,
      life,
      sendT,
      recvT,
      status,
      code,
      jsonOk,
      body: body.slice(0, 300),
      nodeWasDown: false,
    });
    return status;
  }

  private parseOk(
    kind: Kind,
    i: number,
    life: number,
    sendT: number,
    recvT: number,
    contentType: string,
    body: string,
    expectCount: number,
  ): void {
    const rec = this.o.recorder;
    if (kind === 'plain') {
      if (!/^text\/plain/.test(contentType)) throw new Error(`content-type ${contentType}`);
      if (!SEG_ID.test(body)) throw new Error('not a decimal ID');
      rec.addSegment(kind, i, life, sendT, recvT, [Number(body)]);
      return;
    }
    if (!/^application\/json/.test(contentType)) throw new Error(`content-type ${contentType}`);
    const parsed = JSON.parse(body) as { tag?: unknown; id?: unknown; ids?: unknown };
    const raw: unknown[] = expectCount > 0 ? (Array.isArray(parsed.ids) ? parsed.ids : []) : [parsed.id];
    if (expectCount > 0 && raw.length !== expectCount)
      throw new Error(`asked for ${expectCount} IDs, got ${raw.length}`);
    if (kind === 'snow' || kind === 'snowN') {
      const ids = raw.map((v) => {
        if (typeof v !== 'string' || !SNOW_ID.test(v)) throw new Error(`bad snowflake ID ${String(v)}`);
        return BigInt(v);
      });
      rec.addSnowflake(kind, i, life, sendT, recvT, ids);
      return;
    }
    if (FORMATTED_KINDS.has(kind)) {
      if (parsed.tag !== this.o.formatTag) throw new Error(`tag ${String(parsed.tag)}`);
      const { period, seqs } = parseFormatted(raw, sendT, recvT);
      rec.addFormatted(kind, i, life, sendT, recvT, period, seqs);
      return;
    }
    if (parsed.tag !== this.o.tag) throw new Error(`tag ${String(parsed.tag)}`);
    const ids = raw.map((v) => {
      if (typeof v !== 'string' || !SEG_ID.test(v) || !Number.isSafeInteger(Number(v)))
        throw new Error(`bad segment ID ${String(v)}`);
      return Number(v);
    });
    rec.addSegment(kind, i, life, sendT, recvT, ids);
  }

  private pickNode(only?: number): number {
    if (only !== undefined) {
      const target = this.o.targets[only];
      if (target === undefined) throw new Error(`no load target ${only} (${this.o.targets.length} targets)`);
      return target.state === 'up' ? only : -1;
    }
    const up: number[] = [];
    this.o.targets.forEach((n, i) => {
      if (n.state === 'up') up.push(i);
    });
    return up[Math.floor(this.o.random() * up.length)] ?? -1;
  }

  /** A paced loop: `ratePerSec` requests a second at most, one in flight. */
  private loop(ratePerSec: number, one: () => Promise<unknown>): void {
    const interval = 1_000 / ratePerSec;
    const run = async () => {
      let next = now();
      while (!this.stopped) {
        await one();
        next += interval;
        const wait = next - now();
        if (wait > 0) await sleep(wait);
        else if (wait < -10 * interval) next = now(); // do not build up a burst after a stall
      }
    };
    this.loops.push(run());
  }

  /**
   * Client loops: a mix of single IDs, batches, the Leaf plain-text route, snowflake and formatted IDs, across all
   * up nodes.
   */
  startClients(loops: number, ratePerSec: number): void {
    const r = this.o.random;
    const { tag, formatTag } = this.o;
    for (let l = 0; l < loops; l++) {
      this.loop(ratePerSec, async () => {
        const i = this.pickNode();
        if (i < 0) return sleep(20);
        const x = r() * 100;
        if (x < 31) return this.request(i, 'seg', `/api/id/segment/${tag}`);
        if (x < 40) return this.request(i, 'plain', `/api/segment/get/${tag}`);
        if (x < 62) {
          const n = 2 + Math.floor(r() * 499);
          return this.request(i, 'segN', `/api/id/segment/${tag}?count=${n}`, n);
        }
        if (x < 80) return this.request(i, 'snow', '/api/id/snowflake');
        if (x < 89) {
          const n = 2 + Math.floor(r() * 99);
          return this.request(i, 'snowN', `/api/id/snowflake?count=${n}`, n);
        }
        if (x < 96) return this.request(i, 'fmt', `/api/id/formatted/${formatTag}`);
        const n = 2 + Math.floor(r() * 199);
        return this.request(i, 'fmtN', `/api/id/formatted/${formatTag}?count=${n}`, n);
      });
    }
  }

  /** Per node, `ratePerSec` batches of `count` segment IDs: keeps segments turning over once steps are large. */
  startChurn(ratePerSec: number, count = 10_000): void {
    this.o.targets.forEach((_, i) => {
      this.loop(ratePerSec, async () => {
        if (this.pickNode(i) < 0) return sleep(50);
        return this.request(i, 'churn', `/api/id/segment/${this.o.tag}?count=${count}`, count);
      });
    });
  }

  /**
   * Takes batches of 10,000 segment (or formatted) IDs from node `i` as fast as it answers, until it answers
   * anything but 200 or `stop()`.
   */
  drain(i: number, stop: () => boolean, formatted = false): Promise<void> {
    const path = formatted
      ? `/api/id/formatted/${this.o.formatTag}?count=10000`
      : `/api/id/segment/${this.o.tag}?count=10000`;
    const p = (async () => {
      while (!this.stopped && !stop()) {
        if (this.pickNode(i) < 0) {
          await sleep(50);
          continue;
        }
        const status = await this.request(i, formatted ? 'fmtDrain' : 'drain', path, 10_000);
        if (status !== 200) return;
      }
    })();
    this.loops.push(p);
    return p;
  }

  /** GET /api/health on every up node every `everyMs`: must answer 200 JSON (ok or degraded), never hang. */
  startHealth(everyMs: number): void {
    const agent = new http.Agent({ keepAlive: false });
    this.loops.push(
      (async () => {
        while (!this.stopped) {
          await Promise.all(
            this.o.targets.map(async (node) => {
              if (node.state !== 'up') return;
              const t = now();
              const a = await get(agent, node.port, '/api/health', this.o.timeoutMs);
              this.health.probes++;
              const body = 'body' in a ? a.body : '';
              let state = '';
              try {
                state = String((JSON.parse(body) as { status?: unknown }).status ?? '');
              } catch {
                // reported below
              }
              if (a.status === 200 && (state === 'ok' || state === 'degraded')) {
                this.health.ok++;
                if (state === 'degraded') this.health.degraded++;
              } else if (!node.wasDownDuring(t, now())) {
                this.health.failures.push({
                  node: node.name,
                  at: t,
                  status: a.status,
                  detail: 'code' in a ? a.code : body.slice(0, 200),
                });
              }
            }),
          );
          await sleep(everyMs);
        }
      })(),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
    for (const a of this.agents) a.destroy();
  }
}

/**
 * A TCP proxy on 127.0.0.1 between leaf-ts nodes and MariaDB, with faults switchable at runtime:
 *
 * - `setLatency({ minMs, maxMs })`: every chunk travelling DB → node (and node → DB with `directions: 'both'`) is
 *   held for a random 200 ms–2 s (by default) before it is passed on. Order is preserved: a chunk never overtakes
 *   one that arrived before it, so the MySQL protocol stays intact and a query's round trip grows by the delay.
 *   `setLatency(null)` switches it off; chunks already held are still released in order.
 * - `cutAll()`: destroys every open connection on both sides at once (a network blip / firewall reset).
 *
 * When the upstream refuses (MariaDB stopped), the client side is destroyed at once, as a real network would
 * answer with RST: the node sees a fast connection error, never a hang.
 */
import net from 'node:net';

export interface Latency {
  minMs: number;
  maxMs: number;
  /** 'down' (default) delays DB → node chunks only: one added delay per round trip. 'both' delays each way. */
  directions?: 'down' | 'both';
}

export interface ProxyStats {
  connections: number;
  refused: number;
  cuts: number;
  delayedChunks: number;
  maxDelayMs: number;
  bytes: number;
}

type Item = { at: number; chunk: Buffer | null }; // null: end of stream

/** One direction of a connection: an ordered queue of chunks, each released at its time, one timer at a time. */
class Lane {
  private readonly queue: Item[] = [];
  private lastAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly to: net.Socket,
    private readonly onDelay: (ms: number) => void,
  ) {}

  push(chunk: Buffer | null, delayMs: number): void {
    const now = Date.now();
    const at = Math.max(this.lastAt, now + delayMs);
    this.lastAt = at;
    if (at > now) this.onDelay(at - now);
    if (this.queue.length === 0 && at <= now) {
      this.deliver(chunk);
      return;
    }
    this.queue.push({ at, chunk });
    this.arm();
  }

  private arm(): void {
    const first = this.queue[0];
    if (this.timer !== null || first === undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        const now = Date.now();
        for (let next = this.queue[0]; next !== undefined && next.at <= now; next = this.queue[0]) {
          this.queue.shift();
          this.deliver(next.chunk);
        }
        this.arm();
      },
      Math.max(0, first.at - Date.now()),
    );
  }

  private deliver(chunk: Buffer | null): void {
    if (this.to.destroyed) return;
    if (chunk === null) this.to.end();
    else this.to.write(chunk);
  }

  clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.queue.length = 0;
  }
}

export class ChaosProxy {
  readonly name: string;
  port = 0;
  readonly stats: ProxyStats = { connections: 0, refused: 0, cuts: 0, delayedChunks: 0, maxDelayMs: 0, bytes: 0 };
  private readonly server: net.Server;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket; lanes: Lane[] }>();
  private latency: Latency | null = null;

  constructor(
    name: string,
    private readonly targetPort: number,
    private readonly random: () => number = Math.random,
  ) {
    this.name = name;
    this.server = net.createServer((client) => this.accept(client));
  }

  listen(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.address() as net.AddressInfo).port;
        resolve(this.port);
      });
    });
  }

  setLatency(latency: Latency | null): void {
    this.latency = latency;
  }

  get latencyOn(): boolean {
    return this.latency !== null;
  }

  /** Destroys every open connection, both sides. Returns how many were cut. */
  cutAll(): number {
    const n = this.pairs.size;
    for (const pair of this.pairs) this.drop(pair);
    this.stats.cuts += n;
    return n;
  }

  get openConnections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private delay(): number {
    const l = this.latency;
    if (l === null) return 0;
    return l.minMs + this.random() * (l.maxMs - l.minMs);
  }

  private accept(client: net.Socket): void {
    this.stats.connections++;
    client.setNoDelay(true);
    const upstream = net.connect({ host: '127.0.0.1', port: this.targetPort });
    upstream.setNoDelay(true);
    const onDelay = (ms: number) => {
      this.stats.delayedChunks++;
      if (ms > this.stats.maxDelayMs) this.stats.maxDelayMs = Math.round(ms);
    };
    const down = new Lane(client, onDelay); // DB → node
    const up = new Lane(upstream, onDelay); // node → DB
    const pair = { client, upstream, lanes: [down, up] };
    this.pairs.add(pair);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
    });

    upstream.on('data', (chunk: Buffer) => {
      this.stats.bytes += chunk.length;
      down.push(chunk, this.delay());
    });
    client.on('data', (chunk: Buffer) => {
      this.stats.bytes += chunk.length;
      up.push(chunk, this.latency?.directions === 'both' ? this.delay() : 0);
    });
    upstream.on('end', () => down.push(null, this.delay()));
    client.on('end', () => up.push(null, 0));
    upstream.on('error', () => {
      if (!connected) this.stats.refused++;
      this.drop(pair);
    });
    client.on('error', () => this.drop(pair));
    upstream.on('close', () => {
      // A fully ended upstream lets the held chunks drain first; an abrupt close drops everything.
      if (!upstream.readableEnded) this.drop(pair);
    });
    client.on('close', () => this.drop(pair));
  }

  private drop(pair: { client: net.Socket; upstream: net.Socket; lanes: Lane[] }): void {
    if (!this.pairs.delete(pair)) return;
    for (const lane of pair.lanes) lane.clear();
    pair.client.destroy();
    pair.upstream.destroy();
  }
}

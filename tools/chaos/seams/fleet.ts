/**
 * The seams run's fleet (tools/chaos/seams): regions that share no database, each with three leaf-ts nodes, a service
 * on `@leaf-ts/client` and one on `@leaf-ts/embedded` (packageApp.ts). Every process can be killed, paused, stopped
 * gracefully and started again on its port; each region's database can be made slow or unreachable for a while.
 * `checkout` runs the nodes and packages of another checkout (an earlier commit) beside this run's harness.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import {
  MariadbServer,
  type NodeServer,
  PostgresServer,
  freePort,
  isRunning,
  sleep,
  startNodeServer,
  stopChild,
  track,
} from '../../harness';
import { ChaosProxy } from '../proxy';

export type DbKind = 'sqlite' | 'servers';

/** One process of the fleet: a node or a package service, which the scheduler may hurt and start again. */
export interface Service {
  name: string;
  region: number;
  kind: 'node' | 'client' | 'embedded';
  port: number;
  url: string;
  server: NodeServer | null;
  paused: boolean;
  /** Nothing serves on the port now (killed or stopped, not yet started again). */
  down: boolean;
  /** Could not start at all in this run: never asked, never hurt. */
  unusable?: boolean;
}

export interface Region {
  index: number;
  databaseUrl: string;
  nodes: Service[];
  apps: Service[];
  /** Makes the database unreachable for `ms`, or slow (each answer held 0.2–1 s) for `ms`. */
  outage(ms: number): Promise<void>;
  slow(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface FleetOptions {
  regions: number;
  db: DbKind;
  runDir: string;
  /** The checkout whose server.ts and lib/ run (default: this one). */
  checkout: string;
  adminToken: string;
  /** Environment every node gets on top of the defaults (the order lease's timings). */
  nodeEnv: Record<string, string>;
  log: (line: string) => void;
}

export class Fleet {
  readonly regions: Region[] = [];
  constructor(private readonly o: FleetOptions) {}

  get services(): Service[] {
    return this.regions.flatMap((r) => [...r.nodes, ...r.apps]);
  }

  async start(): Promise<void> {
    for (let r = 0; r < this.o.regions; r++) this.regions.push(await this.openRegion(r));
    await Promise.all(this.regions.flatMap((r) => r.nodes.map((s) => this.startService(s, r))));
    // A package that cannot run here (an older checkout's embedded refuses a regional database) is left out, said so.
    await Promise.all(
      this.regions.flatMap((r) =>
        r.apps.map((s) =>
          this.startService(s, r).catch((error: unknown) => {
            s.unusable = true;
            this.o.log(
              `${s.name} left out: ${String((error as Error).message)
                .split('\n')
                .slice(0, 2)
                .join(' ')}`,
            );
          }),
        ),
      ),
    );
  }

  private async openRegion(index: number): Promise<Region> {
    const services = async (kind: Service['kind'], names: string[]) =>
      Promise.all(
        names.map(async (name) => {
          const port = await freePort();
          return {
            name,
            region: index,
            kind,
            port,
            url: `http://127.0.0.1:${port}`,
            server: null,
            paused: false,
            down: true,
          };
        }),
      );
    const nodes = await services(
      'node',
      [0, 1, 2].map((i) => `r${index}n${i}`),
    );
    const apps = [
      ...(await services('client', [`r${index}client`])),
      ...(await services('embedded', [`r${index}embedded`])),
    ];
    if (this.o.db === 'sqlite') {
      const file = path.join(this.o.runDir, `region${index}.db`);
      return {
        index,
        databaseUrl: `file:${file}`,
        nodes,
        apps,
        outage: (ms) => holdSqliteLock(this.o.checkout, file, 'EXCLUSIVE', ms),
        slow: (ms) => holdSqliteLock(this.o.checkout, file, 'IMMEDIATE', ms, 300),
        close: async () => undefined,
      };
    }
    // Servers: region 0 on MariaDB, region 1 on PostgreSQL, each reached through a proxy that can slow it down.
    const server =
      index % 2 === 0
        ? await MariadbServer.create({ log: this.o.log })
        : await PostgresServer.create({ log: this.o.log });
    const url = await server.createAppUser(`leaf_seams_${index}`, 'seams');
    const proxy = new ChaosProxy(`db${index}`, server.port, Math.random);
    await proxy.listen();
    const proxied = Object.assign(new URL(url), { port: String(proxy.port) }).toString();
    return {
      index,
      databaseUrl: proxied,
      nodes,
      apps,
      outage: async (ms) => {
        await server.stop();
        await sleep(ms);
        await server.start();
      },
      slow: async (ms) => {
        proxy.setLatency({ minMs: 200, maxMs: 1_000 });
        await sleep(ms);
        proxy.setLatency(null);
      },
      close: async () => {
        await proxy.close();
        await server.destroy();
      },
    };
  }

  /** Starts (or starts again) a service on its port; resolves once it answers /api/health. */
  async startService(s: Service, region: Region = this.regions[s.region]!): Promise<void> {
    const common = { ...process.env, NODE_ENV: 'production' as const, LEAF_LOG_LEVEL: 'error' };
    const env: NodeJS.ProcessEnv =
      s.kind === 'node'
        ? {
            ...common,
            DATABASE_URL: region.databaseUrl,
            LEAF_NODE_ID: s.name,
            LEAF_ADMIN_TOKEN: this.o.adminToken,
            LEAF_REGIONS: String(this.o.regions),
            LEAF_REGION: String(region.index),
            ...this.o.nodeEnv,
          }
        : {
            ...common,
            LEAF_SEAMS_PACKAGE: s.kind,
            LEAF_SEAMS_LIB: path.join(this.o.checkout, 'lib'),
            LEAF_SEAMS_URLS: region.nodes.map((n) => n.url).join(','),
            LEAF_SEAMS_NAME: s.name,
            LEAF_SEAMS_POLL_MS: this.o.nodeEnv.LEAF_ORDER_POLL_MS,
            ...(this.o.nodeEnv.LEAF_OPAQUE_KEY === undefined
              ? {}
              : { LEAF_OPAQUE_KEY: this.o.nodeEnv.LEAF_OPAQUE_KEY }),
            ...(this.o.nodeEnv.LEAF_OPAQUE_RETIRED_KEYS_FILE === undefined
              ? {}
              : { LEAF_OPAQUE_RETIRED_KEYS_FILE: this.o.nodeEnv.LEAF_OPAQUE_RETIRED_KEYS_FILE }),
            LEAF_REGIONS: String(this.o.regions),
            LEAF_REGION: String(region.index),
            DATABASE_URL: region.databaseUrl,
          };
    const script = s.kind === 'node' ? path.join(this.o.checkout, 'server.ts') : path.join(__dirname, 'packageApp.ts');
    s.server = await startNodeServer({ port: s.port, env, script, cwd: this.o.checkout, timeoutMs: 90_000 });
    s.down = false;
    s.paused = false;
  }

  async kill(s: Service): Promise<void> {
    if (s.server === null) return;
    s.down = true;
    if (s.paused) s.server.child.kill('SIGCONT');
    await stopChild(s.server.child, 0, { signal: 'SIGKILL' });
    s.server = null;
  }

  async term(s: Service): Promise<void> {
    if (s.server === null) return;
    s.down = true;
    if (s.paused) s.server.child.kill('SIGCONT');
    await s.server.stop(10_000);
    s.server = null;
  }

  pause(s: Service): void {
    if (s.server === null || s.paused) return;
    s.paused = true;
    s.server.child.kill('SIGSTOP');
  }

  resume(s: Service): void {
    if (s.server === null || !s.paused) return;
    s.paused = false;
    s.server.child.kill('SIGCONT');
  }

  async close(): Promise<void> {
    for (const s of this.services) {
      if (s.server === null) continue;
      s.server.child.kill('SIGCONT');
      await stopChild(s.server.child, 2_000);
    }
    for (const r of this.regions) await r.close();
  }
}

/**
 * A SQLite database made unreachable for writes (EXCLUSIVE, WAL readers still read) or slow (IMMEDIATE held in bursts
 * of `burstMs`): another process holds the lock, as a stuck writer would.
 */
async function holdSqliteLock(
  checkout: string,
  file: string,
  mode: 'EXCLUSIVE' | 'IMMEDIATE',
  ms: number,
  burstMs = ms,
) {
  // Timers, not a busy loop: the lock is held by an idle process, which leaves both cores to the fleet.
  const script = `
    const Database = require(${JSON.stringify(path.join(checkout, 'node_modules', 'better-sqlite3'))});
    const db = new Database(${JSON.stringify(file)}, { timeout: 5000 });
    const until = Date.now() + ${ms};
    const burst = () => {
      if (Date.now() >= until) return db.close();
      db.exec('BEGIN ${mode}');
      setTimeout(() => { db.exec('COMMIT'); setTimeout(burst, 20); }, Math.min(${burstMs}, until - Date.now()));
    };
    burst();`;
  const child: ChildProcess = track(spawn(process.execPath, ['-e', script], { stdio: 'ignore' }));
  await new Promise<void>((resolve) => child.on('exit', () => resolve()));
  if (isRunning(child)) await stopChild(child, 0, { signal: 'SIGKILL' });
}

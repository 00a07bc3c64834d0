/**
 * What a Patroni cluster (patroni.ts) needs before its first process starts: Debian's packages and the postgres
 * user, free ports, generated passwords, and the settings every node's configuration is written from.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Log, aptInstall, findExecutable } from './apt';
import { type ClusterSettings, DEFAULT_TIMINGS, type PatroniTimings } from './patroniConfig';
import type { OsUser } from './patroniNode';
import { freePort } from './ports';
import { PG_BIN_DIR } from './psql';

export interface PatroniClusterOptions {
  nodes?: number;
  /** Patroni's synchronous_mode (default true): a commit waits for the sync standby, only it may be promoted. */
  synchronous?: boolean;
  /** synchronous_mode_strict (default false): with no standby left, refuse writes rather than go asynchronous. */
  synchronousStrict?: boolean;
  timings?: Partial<PatroniTimings>;
  /** Bytes of WAL a replica may lag and still be promoted (Patroni's default, 1 MiB). */
  maximumLagOnFailover?: number;
  /** Extra postgres parameters for every node. */
  parameters?: Record<string, string | number>;
  log?: Log;
  /**
   * Parent of the nodes' dirs. Default /dev/shm (a tmpfs; else os.tmpdir()): a throwaway cluster gains nothing from a
   * disk, and on a shared machine another job's I/O then cannot stall its fsyncs or its removal. A benchmark that
   * compares against a server on disk passes a disk dir. etcd's data always goes to /dev/shm when there is one.
   */
  baseDir?: string;
  /** Bound for the cluster to come up (initdb, clones, streaming). */
  startTimeoutMs?: number;
  /** Bound for a new leader after a kill or a switchover, and for a node to rejoin. */
  failoverTimeoutMs?: number;
}

/** Defaults of PostgreSQL, etcd, MariaDB and Patroni's REST API: a system service may want them. */
const RESERVED_PORTS = new Set([5432, 2379, 2380, 3306, 8008]);

/** The `postgres` OS user (Debian's postgresql package creates it). */
function postgresUser(): OsUser | undefined {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return line === undefined ? undefined : { uid: Number(uid), gid: Number(gid) };
}

/** Debian's PostgreSQL 15, Patroni and etcd-server, the missing ones installed in one apt-get run; the postgres user. */
export function ensurePatroniPackages(log: Log): OsUser {
  const wanted: Array<[string, () => boolean]> = [
    ['postgresql-15', () => fs.existsSync(path.join(PG_BIN_DIR, 'postgres'))],
    ['patroni', () => findExecutable(['patroni']) !== undefined],
    ['etcd-server', () => findExecutable(['etcd']) !== undefined],
  ];
  const missing = wanted.filter(([, found]) => !found());
  if (missing.length > 0) {
    const names = missing.map(([pkg]) => pkg);
    log(`${names.join(', ')} not installed: installing from Debian packages (apt-get update, apt-get install)…`);
    aptInstall(names, log);
    const still = missing.filter(([, found]) => !found()).map(([pkg]) => pkg);
    if (still.length > 0) throw new Error(`${still.join(', ')} installed but still not found`);
  }
  const user = postgresUser();
  if (user === undefined) throw new Error('no postgres user in /etc/passwd although postgresql-15 is installed');
  return user;
}

/** `count` distinct free ports, none of the reserved ones. */
export async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) {
    const port = await freePort();
    if (!RESERVED_PORTS.has(port)) ports.add(port);
  }
  return [...ports];
}

export function secret(): string {
  return randomBytes(12).toString('hex');
}

/** Every node's shared settings, from the options (defaults: synchronous, not strict, Patroni's 1 MiB lag). */
export function clusterSettings(options: PatroniClusterOptions, scope: string): Omit<ClusterSettings, 'etcdHost'> {
  return {
    scope,
    binDir: PG_BIN_DIR,
    timings: { ...DEFAULT_TIMINGS, ...options.timings },
    synchronous: options.synchronous ?? true,
    synchronousStrict: options.synchronousStrict ?? false,
    maximumLagOnFailover: options.maximumLagOnFailover ?? 1_048_576,
    superuser: { user: 'postgres', password: secret() },
    replication: { user: 'replicator', password: secret() },
    parameters: options.parameters ?? {},
  };
}

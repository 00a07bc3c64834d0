/**
 * The Patroni 3.0.2 configuration of one throwaway node (written as JSON: YAML's superset, so Patroni's
 * yaml.safe_load reads it and we need no YAML writer). Keys as in Patroni's docs for 3.0 (`etcd3:`,
 * `bootstrap.dcs`, `postgresql.pg_hba`, …); the why of each choice is beside it.
 */
import path from 'node:path';

/**
 * Shortened timings, so a failover takes seconds, not half a minute. `ttl` is the leader lease: a dead primary's
 * key lasts up to this long, then a replica promotes (about ttl + loop_wait + promotion). Patroni wants
 * loop_wait + 2 × retry_timeout ≤ ttl; retry_timeout also bounds each DCS and postgres call before the primary
 * demotes itself, so it is not shortened further on a busy 2-core machine.
 */
export interface PatroniTimings {
  ttl: number;
  loopWait: number;
  retryTimeout: number;
}

export const DEFAULT_TIMINGS: PatroniTimings = { ttl: 10, loopWait: 1, retryTimeout: 3 };

export interface Credentials {
  user: string;
  password: string;
}

export interface ClusterSettings {
  scope: string;
  /** "127.0.0.1:port" of etcd's client API. */
  etcdHost: string;
  binDir: string;
  timings: PatroniTimings;
  /** Patroni's synchronous_mode: a commit waits for the sync standby, and only it may be promoted. */
  synchronous: boolean;
  /** synchronous_mode_strict: with no sync standby left, the primary refuses writes instead of going async. */
  synchronousStrict: boolean;
  /** How far behind (bytes of WAL) a replica may be and still be promoted; Patroni's default is 1 MiB. */
  maximumLagOnFailover: number;
  superuser: Credentials;
  replication: Credentials;
  /** Extra postgres parameters (DCS-wide), e.g. { fsync: 'off' } for a benchmark that wants it. */
  parameters: Record<string, string | number>;
}

export interface NodePaths {
  dir: string;
  dataDir: string;
  socketDir: string;
  logDir: string;
}

export function nodePaths(dir: string): NodePaths {
  return { dir, dataDir: path.join(dir, 'data'), socketDir: path.join(dir, 'run'), logDir: path.join(dir, 'log') };
}

export function patroniConfig(
  name: string,
  paths: NodePaths,
  ports: { pg: number; api: number },
  s: ClusterSettings,
): object {
  return {
    scope: s.scope,
    namespace: '/leaf-harness/',
    name,
    log: { level: 'INFO' },
    restapi: { listen: `127.0.0.1:${ports.api}`, connect_address: `127.0.0.1:${ports.api}` },
    // etcd v3 API through its gRPC gateway (python3-etcd's v2 client is not used).
    etcd3: { hosts: [s.etcdHost], protocol: 'http' },
    bootstrap: {
      dcs: {
        ttl: s.timings.ttl,
        loop_wait: s.timings.loopWait,
        retry_timeout: s.timings.retryTimeout,
        maximum_lag_on_failover: s.maximumLagOnFailover,
        synchronous_mode: s.synchronous,
        synchronous_mode_strict: s.synchronous && s.synchronousStrict,
        synchronous_node_count: 1,
        postgresql: {
          // A killed primary restarted later has WAL the new timeline lacks: pg_rewind brings it back as a replica.
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            max_connections: 100,
            shared_buffers: '32MB',
            wal_level: 'replica',
            hot_standby: 'on',
            wal_log_hints: 'on',
            max_wal_senders: 10,
            // Each standby has a replication slot (use_slots): the primary keeps what it still needs, no more.
            max_replication_slots: 10,
            password_encryption: 'scram-sha-256',
            // A standby pointed at a new primary retries its connection after 1 s, not 5 s.
            wal_retrieve_retry_interval: '1s',
            ...s.parameters,
          },
        },
      },
      // no-sync: a throwaway cluster's files need no fsync at creation (a killed process loses no page cache).
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }, 'data-checksums', 'no-sync'],
    },
    postgresql: {
      listen: `127.0.0.1:${ports.pg}`,
      connect_address: `127.0.0.1:${ports.pg}`,
      data_dir: paths.dataDir,
      bin_dir: s.binDir,
      pgpass: path.join(paths.dir, 'pgpass'),
      // Patroni's own connection goes over the node's private socket dir (trusted below), not TCP.
      use_unix_socket: true,
      // A fast checkpoint: pg_basebackup's default spread one would make each clone wait on it.
      basebackup: [{ checkpoint: 'fast' }, 'no-sync'],
      authentication: {
        superuser: { username: s.superuser.user, password: s.superuser.password },
        replication: { username: s.replication.user, password: s.replication.password },
      },
      // A diverged old primary that pg_rewind cannot fix is recloned instead of left out: restartNode always rejoins.
      remove_data_directory_on_rewind_failure: true,
      remove_data_directory_on_diverged_timelines: true,
      parameters: {
        unix_socket_directories: paths.socketDir,
        logging_collector: 'on',
        log_directory: paths.logDir,
        log_filename: 'postgresql.log',
        log_file_mode: '0644',
        log_line_prefix: '%m [%p] %q%u@%d ',
      },
      pg_hba: [
        'local all all trust',
        `host replication ${s.replication.user} 127.0.0.1/32 scram-sha-256`,
        'host all all 127.0.0.1/32 scram-sha-256',
      ],
    },
    // No /dev/watchdog here; Patroni would otherwise try (and warn) on every start.
    watchdog: { mode: 'off' },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

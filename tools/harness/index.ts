/**
 * The throwaway-infrastructure harness shared by the tests, the bench and the chaos suite: free ports, Debian
 * packages installed when missing, MariaDB, PostgreSQL and Redis servers, a Galera cluster and a Patroni cluster (PostgreSQL
 * + etcd) of their own (127.0.0.1, own data dirs and ports, stopped by PID), leaf-ts server processes waited on
 * through /api/health, and exit hooks stopping what was started. It imports nothing from app/, components/ or test/.
 */
export { type Log, aptInstall, ensurePackage, findExecutable } from './apt';
export { isRunning, stopAllChildren, stopChild, track } from './children';
export { onExit } from './exitHooks';
export { type EtcdServer, ensureEtcd, startEtcd } from './etcd';
export { killMarked, markedEnv, markedPids, spawnMarkedWatchdog } from './markedProcesses';
export {
  type ClusterView,
  type NodeRole,
  type NodeRoleReport,
  PatroniCluster,
  type PatroniClusterOptions,
  PatroniNode,
  type PatroniStatus,
  type PatroniTimings,
  describeRoles,
} from './patroni';
export { ensurePatroniPackages } from './patroniSetup';
export {
  PostgresServer,
  type PostgresServerOptions,
  createPgDatabase,
  ensurePostgres,
  pgQuery,
  postgresAvailable,
  withPgDatabase,
} from './postgres';
export { PG_BIN_DIR, PsqlError, type PsqlOptions, psql, psqlRun } from './psql';
export { GaleraCluster, type GaleraClusterOptions, type GaleraNode, type NodePorts, type WsrepStatus } from './galera';
export {
  type MariadbBinaries,
  MariadbServer,
  type MariadbServerOptions,
  type TestDatabase,
  createDatabase,
  ensureMariadb,
  findMariadb,
  withDatabase,
} from './mariadb';
export {
  NotReadyError,
  type NodeServer,
  REPO_ROOT,
  type SpawnServerOptions,
  cleanEnv,
  httpGetStatus,
  type LaunchedServer,
  launchServer,
  spawnServer,
  startNodeServer,
  waitForHealth,
} from './node';
export { listensOn } from './listener';
export { freePort, freePortSync } from './ports';
export { type PrometheusScrape, type PrometheusServer, ensurePrometheus, startPrometheus } from './prometheus';
export { type RedisServer, ensureRedis, startRedis } from './redis';
export { rng, shuffled } from './rng';
export { percentile } from './stats';
export { pollFor, sleep } from './wait';
export { spawnWatchdog } from './watchdog';
export { commandLine, groupPids, signalGroup, spawnGroup, waitGroupGone } from './processGroup';
export { type ServiceUnit, readServiceUnit } from './systemdUnit';
export {
  type BackendStats,
  HAPROXY_RECIPE,
  type HaproxyServer,
  checkHaproxyConfig,
  ensureHaproxy,
  loopbackConfig,
  startHaproxy,
  startHaproxyRecipe,
  waitForServers,
} from './haproxy';
export { BASE_IMAGE, type Container, Podman, ensurePodman } from './container';

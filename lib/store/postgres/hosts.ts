import pg from 'pg';
import type { HostHealth } from '../leafStore';
import { hostLabel } from '../serverUrl';
import type { PgConfig } from './pool';
import { type RoleProbe, assignRoles, conninfoApplicationName } from './roles';

/** One statement: what the host is, whom its commits wait for, and who streams from it (roles.ts reads it). */
const ROLE_SQL = `SELECT pg_is_in_recovery() AS standby,
  current_setting('synchronous_standby_names') AS sync_names,
  current_setting('cluster_name') AS cluster_name,
  (SELECT conninfo FROM pg_stat_wal_receiver LIMIT 1) AS receiver_conninfo,
  (SELECT count(*) FROM pg_stat_wal_receiver)::int AS receivers,
  (SELECT coalesce(json_agg(json_build_object('name', application_name, 'state', sync_state)), '[]'::json) FROM pg_stat_replication) AS replicas`;

interface RoleRow {
  standby: boolean;
  sync_names: string;
  cluster_name: string;
  receiver_conninfo: string | null;
  receivers: number;
  replicas: Array<{ name: string; state: string | null }>;
}

/** Each host on a fresh connection of its own, in parallel; roles put together from every answer. */
export async function probeHosts(configs: PgConfig[], timeoutMs: number): Promise<HostHealth[]> {
  const probed = await Promise.all(configs.map((c) => probeHost(c, timeoutMs)));
  const roles = assignRoles(probed.map((p) => p.probe));
  return probed.map(({ health }, i) => {
    const role = roles[i];
    return role === null || role === undefined ? health : { ...health, postgres: role };
  });
}

/** The WAL receiver's name as the primary lists it: from its conninfo, else what libpq falls back to. */
function receiverName(row: RoleRow): string | null {
  if (row.receivers === 0) return null;
  if (row.receiver_conninfo === null) return null; // not readable without pg_read_all_stats
  return conninfoApplicationName(row.receiver_conninfo) ?? (row.cluster_name !== '' ? row.cluster_name : 'walreceiver');
}

async function probeHost(
  config: PgConfig,
  timeoutMs: number,
): Promise<{ health: HostHealth; probe: RoleProbe | null }> {
  const host = hostLabel({ host: config.host ?? '', port: config.port ?? 0 });
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const client = new pg.Client({ ...config, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs });
  client.on('error', () => {}); // the probe's own statements fail with it
  let timer: ReturnType<typeof setTimeout> | undefined;
  const probe = async (): Promise<{ health: HostHealth; probe: RoleProbe | null }> => {
    await client.connect();
    await client.query('SELECT 1');
    const latencyMs = elapsed();
    const { rows } = await client.query<RoleRow>(ROLE_SQL);
    const row = rows[0];
    const health: HostHealth = { host, reachable: true, latencyMs };
    if (row === undefined) return { health, probe: null };
    return {
      health,
      probe: {
        standby: row.standby,
        syncNames: row.sync_names,
        receiverName: receiverName(row),
        replicas: row.replicas,
      },
    };
  };
  try {
    return await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })), timeoutMs);
      }),
    ]);
  } catch (error) {
    // A short code (ECONNREFUSED, a SQLSTATE such as 28P01, TIMEOUT), never the driver's message.
    const code = (error as { code?: unknown }).code;
    return {
      health: { host, reachable: false, latencyMs: elapsed(), error: typeof code === 'string' ? code : 'ERROR' },
      probe: null,
    };
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => {});
  }
}

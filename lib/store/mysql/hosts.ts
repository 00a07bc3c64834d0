import mysql, { type Connection, type PoolOptions } from 'mysql2/promise';
import type { HostHealth } from '../leafStore';
import { type MysqlHost, hostLabel } from './url';

/** Each host on a fresh connection of its own (the pools' failover would hide which answered), in parallel. */
export function probeHosts(hosts: MysqlHost[], options: PoolOptions, timeoutMs: number): Promise<HostHealth[]> {
  return Promise.all(hosts.map((h) => probeHost(h, options, timeoutMs)));
}

/** Status variables of a Galera node (SHOW STATUS LIKE 'wsrep_%'); absent on a server without wsrep. */
function galeraOf(rows: Array<{ Variable_name: string; Value: string }>): HostHealth['galera'] {
  const v = new Map(rows.map((r) => [r.Variable_name.toLowerCase(), r.Value]));
  // A MariaDB built with wsrep but not running it shows a few wsrep_% variables with no provider: not Galera.
  const provider = v.get('wsrep_provider_name');
  if (v.get('wsrep_local_state_comment') === undefined || provider === undefined || provider === '') return undefined;
  return {
    state: v.get('wsrep_local_state_comment') ?? '',
    clusterSize: Number(v.get('wsrep_cluster_size') ?? 0),
    ready: v.get('wsrep_ready') === 'ON',
    clusterStatus: v.get('wsrep_cluster_status') ?? '',
  };
}

async function probeHost(h: MysqlHost, options: PoolOptions, timeoutMs: number): Promise<HostHealth> {
  const host = hostLabel(h);
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  let conn: Connection | undefined;
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const probe = async (): Promise<HostHealth> => {
    const c = await mysql.createConnection({ ...options, host: h.host, port: h.port, connectTimeout: timeoutMs });
    if (timedOut) {
      c.destroy(); // connected after we gave up on it
      throw new Error('late');
    }
    conn = c;
    await c.query({ sql: 'SELECT 1', timeout: timeoutMs });
    const latencyMs = elapsed();
    const [rows] = await c.query({ sql: "SHOW GLOBAL STATUS LIKE 'wsrep\\_%'", timeout: timeoutMs });
    const galera = galeraOf(rows as Array<{ Variable_name: string; Value: string }>);
    return { host, reachable: true, latencyMs, ...(galera === undefined ? {} : { galera }) };
  };
  try {
    return await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(Object.assign(new Error('timeout'), { code: 'TIMEOUT' }));
        }, timeoutMs);
      }),
    ]);
  } catch (error) {
    // A short code (ECONNREFUSED, ER_ACCESS_DENIED_ERROR, TIMEOUT), never the driver's message.
    const code = (error as { code?: unknown }).code;
    return { host, reachable: false, latencyMs: elapsed(), error: typeof code === 'string' ? code : 'ERROR' };
  } finally {
    clearTimeout(timer);
    conn?.destroy();
  }
}

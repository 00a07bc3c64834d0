import pg from 'pg';
import type { HostHealth } from '../leafStore';
import { hostLabel } from '../serverUrl';
import type { PgConfig } from './pool';

/**
 * Each host on its own, in parallel, each within `timeoutMs`: a fresh connection straight to that host (not the
 * executor's pools, whose failover would hide which host answered), `SELECT 1`, then whether it is the primary.
 */
export function probeHosts(configs: PgConfig[], timeoutMs: number): Promise<HostHealth[]> {
  return Promise.all(configs.map((c) => probeHost(c, timeoutMs)));
}

async function probeHost(config: PgConfig, timeoutMs: number): Promise<HostHealth> {
  const host = hostLabel({ host: config.host ?? '', port: config.port ?? 0 });
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const client = new pg.Client({ ...config, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs });
  client.on('error', () => {}); // the probe's own statements fail with it
  let timer: ReturnType<typeof setTimeout> | undefined;
  const probe = async (): Promise<HostHealth> => {
    await client.connect();
    await client.query('SELECT 1');
    const latencyMs = elapsed();
    const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
    return { host, reachable: true, latencyMs, postgres: { role: rows[0]?.standby === false ? 'primary' : 'standby' } };
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
    return { host, reachable: false, latencyMs: elapsed(), error: typeof code === 'string' ? code : 'ERROR' };
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => {});
  }
}

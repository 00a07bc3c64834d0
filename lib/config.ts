import os from 'node:os';
import { LeafError } from './errors';
import { DEFAULT_EPOCH_MS } from './snowflake/layout';

/** Settings read from the environment once, at start; a bad value fails loudly with what was wrong. */
export interface SnowflakeConfig {
  enabled: boolean;
  epochMs: number;
  nodeId: string;
  leaseMs: number;
}

export function snowflakeConfig(env: Record<string, string | undefined> = process.env): SnowflakeConfig {
  const enabled = (env.LEAF_SNOWFLAKE ?? 'on').toLowerCase() !== 'off';
  return {
    enabled,
    epochMs: parseEpoch(env.LEAF_SNOWFLAKE_EPOCH),
    // Each cluster worker is its own node: the worker index keeps identities unique and stable across restarts.
    nodeId: (env.LEAF_NODE_ID || `${os.hostname()}:${env.PORT ?? 3000}`) + (env.LEAF_WORKER_INDEX ? `#${env.LEAF_WORKER_INDEX}` : ''),
    leaseMs: parsePositiveInt('LEAF_WORKER_LEASE_MS', env.LEAF_WORKER_LEASE_MS, 10_000),
  };
}

function parseEpoch(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_EPOCH_MS;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(ms)) throw new LeafError('invalid_config', `LEAF_SNOWFLAKE_EPOCH must be an ISO date or ms since 1970 (got "${value}").`);
  return ms;
}

function parsePositiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new LeafError('invalid_config', `${name} must be a positive integer (got "${value}").`);
  return n;
}

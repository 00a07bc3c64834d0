/** What a PostgreSQL failure says about the statement that met it (docs/design.md#executors-hosts-and-retries). */

import { isLeafError } from '../../errors';
import type { Classified, Phase } from '../retry';

export const SERIALIZATION_FAILURE = '40001';
export const DEADLOCK_DETECTED = '40P01';
export const LOCK_NOT_AVAILABLE = '55P03';
export const READ_ONLY_SQL_TRANSACTION = '25006';
export const CANNOT_CONNECT_NOW = '57P03';

const RETRY_SAME_HOST = new Set([SERIALIZATION_FAILURE, DEADLOCK_DETECTED, LOCK_NOT_AVAILABLE]);
const RETRY_OTHER_HOST = new Set([READ_ONLY_SQL_TRANSACTION, CANNOT_CONNECT_NOW]);

/** A commit whose wait for the synchronous standby was cancelled: never acknowledged (a failover may lose it). */
export class SyncCommitUnacknowledged extends Error {
  override readonly name = 'SyncCommitUnacknowledged';
  readonly code = 'SYNC_COMMIT_UNACKNOWLEDGED';
}

/** A connection whose server is not a writable primary (in recovery, or read-only by default). */
export class NotPrimary extends Error {
  override readonly name = 'NotPrimary';
  readonly code = 'NOT_PRIMARY';
}

/** What the server says in the WARNING of a cancelled wait for the synchronous standby (PostgreSQL's syncrep.c). */
const SYNC_WAIT_CANCELLED = /wait for synchronous replication|committed locally, but might not have been replicated/i;

export function isSyncWaitCancelled(notice: { message?: unknown; detail?: unknown }): boolean {
  return (
    SYNC_WAIT_CANCELLED.test(String(notice.message ?? '')) || SYNC_WAIT_CANCELLED.test(String(notice.detail ?? ''))
  );
}

interface DriverError {
  code?: unknown;
  severity?: unknown;
}

/** An answer from the server (an ErrorResponse): its SQLSTATE and severity. */
export function serverError(error: unknown): { code: string; severity: string } | undefined {
  const e = error as DriverError | null;
  return typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string'
    ? { code: e.code, severity: e.severity }
    : undefined;
}

export function classify(error: unknown, phase: Phase): Classified {
  if (phase === 'connect') return { outcome: 'committed-not', moveHost: true };
  if (isLeafError(error)) return { outcome: 'fatal', moveHost: false };
  const server = serverError(error);
  // ERROR: the transaction rolled back. FATAL/PANIC: the session ends, possibly after its commit (below).
  if (server !== undefined && server.severity === 'ERROR') {
    if (RETRY_SAME_HOST.has(server.code)) return { outcome: 'committed-not', moveHost: false };
    if (RETRY_OTHER_HOST.has(server.code)) return { outcome: 'committed-not', moveHost: true };
    return { outcome: 'fatal', moveHost: false };
  }
  // Our own mistake (a value the driver cannot send): the same on every retry.
  if (error instanceof TypeError || error instanceof RangeError) return { outcome: 'fatal', moveHost: false };
  // node-postgres refuses a statement on a connection it already knows is broken, before sending anything.
  if (error instanceof Error && / is not queryable$/.test(error.message))
    return { outcome: 'committed-not', moveHost: true };
  // A lost or terminated connection, the client-side bound, an unacknowledged synchronous commit, or any other
  // driver-side failure: no reliable answer came for a statement that was sent. Not knowing is the safe reading.
  return { outcome: phase === 'uncommitted' ? 'committed-not' : 'unknown-outcome', moveHost: true };
}

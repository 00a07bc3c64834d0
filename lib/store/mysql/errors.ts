/** What a MySQL/MariaDB failure says about the statement that met it (docs/design.md#executors-hosts-and-retries). */

import { isLeafError } from '../../errors';
import type { Classified, Phase } from '../retry';

export const ER_LOCK_DEADLOCK = 1213;
export const ER_LOCK_WAIT_TIMEOUT = 1205;
export const ER_UNKNOWN_COM_ERROR = 1047;
export const ER_ERROR_DURING_COMMIT = 1180;
export const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

const NOT_COMMITTED = new Set([ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, ER_UNKNOWN_COM_ERROR]);

interface DriverError {
  errno?: unknown;
  code?: unknown;
  fatal?: unknown;
  message?: unknown;
  sqlState?: unknown;
}

/** A server error packet: the connection is intact and the server answered for this statement. */
export function serverErrno(error: unknown): number | undefined {
  const e = error as DriverError | null;
  // A server error packet carries both errno and sqlState; a socket error's errno is a negative OS number.
  return typeof e?.errno === 'number' && e.errno > 0 && typeof e.sqlState === 'string' ? e.errno : undefined;
}

export function classify(error: unknown, phase: Phase): Classified {
  if (phase === 'connect') return { outcome: 'committed-not', moveHost: true };
  if (isLeafError(error)) return { outcome: 'fatal', moveHost: false };
  const errno = serverErrno(error);
  if (errno !== undefined) {
    if (NOT_COMMITTED.has(errno)) return { outcome: 'committed-not', moveHost: errno === ER_UNKNOWN_COM_ERROR };
    if (errno === ER_ERROR_DURING_COMMIT)
      return { outcome: phase === 'uncommitted' ? 'committed-not' : 'unknown-outcome', moveHost: true };
    return { outcome: 'fatal', moveHost: false };
  }
  const e = error as DriverError | null;
  // mysql2 refuses a command on a connection it already knows is closed, before writing anything.
  if (
    typeof e?.message === 'string' &&
    e.message.startsWith("Can't add new command when connection is in closed state")
  ) {
    return { outcome: 'committed-not', moveHost: true };
  }
  // A lost connection or a query timeout (PROTOCOL_CONNECTION_LOST, ECONNRESET, EPIPE, ETIMEDOUT,
  // PROTOCOL_SEQUENCE_TIMEOUT, …): no answer came for a statement that was sent. Any other driver-side error
  // counts the same: not knowing is the safe reading.
  if (typeof e?.code === 'string' || e?.fatal === true) {
    return { outcome: phase === 'uncommitted' ? 'committed-not' : 'unknown-outcome', moveHost: true };
  }
  return { outcome: 'fatal', moveHost: false };
}

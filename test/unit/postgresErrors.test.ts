import { describe, expect, it } from 'vitest';
import { LeafError } from '@/lib/errors';
import { NotPrimary, SyncCommitUnacknowledged, classify, isSyncWaitCancelled } from '@/lib/store/postgres/errors';
import type { Phase } from '@/lib/store/retry';

/** Errors shaped as node-postgres builds them: a server ErrorResponse (code, severity), or its own connection errors. */
const server = (code: string, severity = 'ERROR') =>
  Object.assign(new Error(code), { code, severity, length: 100, name: 'error' });
const terminated = () => new Error('Connection terminated unexpectedly');
const reset = () => Object.assign(new Error('read ECONNRESET'), { errno: -104, code: 'ECONNRESET', syscall: 'read' });
const timeout = () => Object.assign(new Error('no answer within 5000 ms'), { code: 'TIMEOUT' });

describe('classify (PostgreSQL)', () => {
  it.each<[string, () => unknown, Phase, string, boolean]>([
    ['40001 serialization failure', () => server('40001'), 'may-commit', 'committed-not', false],
    ['40P01 deadlock', () => server('40P01'), 'uncommitted', 'committed-not', false],
    ['55P03 lock_timeout', () => server('55P03'), 'may-commit', 'committed-not', false],
    [
      '25006 read-only transaction (a standby): another host',
      () => server('25006'),
      'may-commit',
      'committed-not',
      true,
    ],
    ['57P03 cannot connect now: another host', () => server('57P03'), 'uncommitted', 'committed-not', true],
    [
      'FATAL 57P01 admin shutdown after an autocommit statement: may have committed',
      () => server('57P01', 'FATAL'),
      'may-commit',
      'unknown-outcome',
      true,
    ],
    ['FATAL 57P01 before COMMIT was sent', () => server('57P01', 'FATAL'), 'uncommitted', 'committed-not', true],
    ['connection terminated after COMMIT was sent', terminated, 'may-commit', 'unknown-outcome', true],
    ['reset after an autocommit statement', reset, 'may-commit', 'unknown-outcome', true],
    ['the client-side bound after COMMIT was sent', timeout, 'may-commit', 'unknown-outcome', true],
    ['connection terminated before COMMIT was sent', terminated, 'uncommitted', 'committed-not', true],
    [
      'a cancelled wait for the sync standby (success with a WARNING)',
      () => new SyncCommitUnacknowledged('x'),
      'may-commit',
      'unknown-outcome',
      true,
    ],
    [
      'not queryable: nothing was sent',
      () => new Error('Client has encountered a connection error and is not queryable'),
      'may-commit',
      'committed-not',
      true,
    ],
    ['not the primary (checked on connect)', () => new NotPrimary('x'), 'connect', 'committed-not', true],
    ['any failure to connect', () => new Error('timeout expired'), 'connect', 'committed-not', true],
    ['23505 duplicate key', () => server('23505'), 'may-commit', 'fatal', false],
    ['42601 syntax error', () => server('42601'), 'uncommitted', 'fatal', false],
    [
      'a value the driver cannot send',
      () => new TypeError('Do not know how to serialize a BigInt'),
      'may-commit',
      'fatal',
      false,
    ],
    ['a LeafError', () => new LeafError('tag_exists', 'x'), 'may-commit', 'fatal', false],
  ])('%s', (_name, make, phase, outcome, moveHost) => {
    expect(classify(make(), phase)).toEqual({ outcome, moveHost });
  });

  it("recognises the server's WARNING of a cancelled wait for synchronous replication", () => {
    expect(isSyncWaitCancelled({ message: 'canceling wait for synchronous replication due to user request' })).toBe(
      true,
    );
    expect(
      isSyncWaitCancelled({
        message:
          'canceling the wait for synchronous replication and terminating connection due to administrator command',
      }),
    ).toBe(true);
    expect(
      isSyncWaitCancelled({
        message: 'x',
        detail: 'The transaction has already committed locally, but might not have been replicated to the standby.',
      }),
    ).toBe(true);
    expect(isSyncWaitCancelled({ message: 'there is no transaction in progress' })).toBe(false);
  });
});

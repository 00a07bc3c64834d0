import { describe, expect, it } from 'vitest';
import { LeafError } from '@/lib/errors';
import { classify } from '@/lib/store/mysql/errors';
import { AttemptFault, type Phase, type RetryPolicy, allowedHosts, withRetries } from '@/lib/store/retry';

/** Errors shaped as mysql2 builds them: a server error packet, a socket error, mysql2's own protocol errors. */
const server = (errno: number, code: string) =>
  Object.assign(new Error(code), { errno, code, sqlState: errno === 1047 ? '08S01' : '40001', fatal: false });
const deadlock = () => server(1213, 'ER_LOCK_DEADLOCK');
const notPrimary = () => server(1047, 'ER_UNKNOWN_COM_ERROR');
const lockWait = () => server(1205, 'ER_LOCK_WAIT_TIMEOUT');
const duplicate = () => server(1062, 'ER_DUP_ENTRY');
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED'), { errno: -111, code: 'ECONNREFUSED', syscall: 'connect' });
const lost = () =>
  Object.assign(new Error('Connection lost: The server closed the connection.'), {
    code: 'PROTOCOL_CONNECTION_LOST',
    fatal: true,
  });
const queryTimeout = () =>
  Object.assign(new Error('Query inactivity timeout'), {
    code: 'PROTOCOL_SEQUENCE_TIMEOUT',
    errorno: 'PROTOCOL_SEQUENCE_TIMEOUT',
  });
const closedState = () =>
  Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true });

describe('classify', () => {
  it.each<[string, () => unknown, Phase, string, boolean]>([
    ['1213 deadlock / certification failure', deadlock, 'may-commit', 'committed-not', false],
    ['1205 lock wait timeout', lockWait, 'may-commit', 'committed-not', false],
    ['1047 WSREP not ready: another host', notPrimary, 'may-commit', 'committed-not', true],
    ['1047 inside a transaction', notPrimary, 'uncommitted', 'committed-not', true],
    [
      '1180 at commit (left the primary component mid-replication): another host',
      () => server(1180, 'ER_ERROR_DURING_COMMIT'),
      'may-commit',
      'unknown-outcome',
      true,
    ],
    ['1180 before COMMIT was sent', () => server(1180, 'ER_ERROR_DURING_COMMIT'), 'uncommitted', 'committed-not', true],
    ['connect refused', refused, 'connect', 'committed-not', true],
    [
      'any failure to get a connection',
      () => new Error('Pool does Not have online node.'),
      'connect',
      'committed-not',
      true,
    ],
    ['connection lost after an autocommit statement', lost, 'may-commit', 'unknown-outcome', true],
    ['query timeout after an autocommit statement', queryTimeout, 'may-commit', 'unknown-outcome', true],
    [
      'reset after an autocommit statement',
      () => Object.assign(new Error('read ECONNRESET'), { errno: -104, code: 'ECONNRESET' }),
      'may-commit',
      'unknown-outcome',
      true,
    ],
    ['connection lost before COMMIT was sent', lost, 'uncommitted', 'committed-not', true],
    ['query timeout before COMMIT was sent', queryTimeout, 'uncommitted', 'committed-not', true],
    ['connection already closed: nothing written', closedState, 'may-commit', 'committed-not', true],
    ['duplicate key', duplicate, 'may-commit', 'fatal', false],
    ['syntax error', () => server(1064, 'ER_PARSE_ERROR'), 'uncommitted', 'fatal', false],
    ['a plain Error', () => new Error('boom'), 'may-commit', 'fatal', false],
    ['a LeafError', () => new LeafError('tag_exists', 'x'), 'may-commit', 'fatal', false],
  ])('%s', (_name, make, phase, outcome, moveHost) => {
    expect(classify(make(), phase)).toEqual({ outcome, moveHost });
  });
});

/** A scripted attempt: each call takes the next entry; an Error-producing entry is thrown as an AttemptFault. */
function scripted<T>(script: Array<{ fault: () => unknown; phase: Phase; host?: number } | { ok: T }>) {
  const seen: Array<{ attempt: number; exclude: number[] }> = [];
  const attempt = async (ctx: { attempt: number; exclude: ReadonlySet<number> }): Promise<T> => {
    seen.push({ attempt: ctx.attempt, exclude: [...ctx.exclude].sort() });
    const step = script[ctx.attempt - 1];
    if (step === undefined) throw new Error('script ran out');
    if ('ok' in step) return step.ok;
    throw new AttemptFault(step.phase, step.fault(), step.host);
  };
  return { attempt, seen };
}

function policy(over: Partial<RetryPolicy> = {}): RetryPolicy & { slept: number[]; hostFaults: number[] } {
  const slept: number[] = [];
  const hostFaults: number[] = [];
  let t = 0;
  return {
    classify,
    attempts: 4,
    budgetMs: 5_000,
    retryUnknown: false,
    random: () => 0.5,
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
    onHostFault: (h) => hostFaults.push(h),
    slept,
    hostFaults,
    ...over,
  };
}

const giveUp = ({ cause, classified }: { cause: unknown; classified: { outcome: string } }) =>
  new LeafError('store_unavailable', `gave up: ${classified.outcome}`, { cause });

describe('withRetries', () => {
  it('retries 1213 (certification failure) and succeeds, with growing jittered backoff', async () => {
    const p = policy();
    const { attempt, seen } = scripted([
      { fault: deadlock, phase: 'may-commit', host: 0 },
      { fault: deadlock, phase: 'may-commit', host: 0 },
      { ok: 42 },
    ]);
    expect(await withRetries(attempt, p, giveUp)).toBe(42);
    expect(seen.map((s) => s.attempt)).toEqual([1, 2, 3]);
    // A conflict is not the host's fault: the same host may be used again.
    expect(seen.map((s) => s.exclude)).toEqual([[], [], []]);
    expect(p.slept).toEqual([20, 40]);
    expect(p.hostFaults).toEqual([]);
  });

  it('moves to another host on 1047 and on a connection error, and reports those hosts', async () => {
    const p = policy();
    const { attempt, seen } = scripted([
      { fault: notPrimary, phase: 'may-commit', host: 0 },
      { fault: refused, phase: 'connect', host: 1 },
      { ok: 'done' },
    ]);
    expect(await withRetries(attempt, p, giveUp)).toBe('done');
    expect(seen.map((s) => s.exclude)).toEqual([[], [0], [0, 1]]);
    expect(p.hostFaults).toEqual([0, 1]);
  });

  it('reports each retried failure with its phase, and not the last one it gives up on', async () => {
    const retried: string[] = [];
    const p = policy({
      attempts: 3,
      onRetry: ({ classified }, phase) => retried.push(`${phase}:${classified.outcome}`),
    });
    const { attempt } = scripted([0, 1, 2].map(() => ({ fault: deadlock, phase: 'may-commit' as const })));
    await expect(withRetries(attempt, p, giveUp)).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(retried).toEqual(['may-commit:committed-not', 'may-commit:committed-not']);
  });

  it('gives up after the attempts run out', async () => {
    const p = policy({ attempts: 3 });
    const { attempt, seen } = scripted([0, 1, 2, 3].map(() => ({ fault: deadlock, phase: 'may-commit' as const })));
    await expect(withRetries(attempt, p, giveUp)).rejects.toMatchObject({
      code: 'store_unavailable',
      message: 'gave up: committed-not',
    });
    expect(seen).toHaveLength(3);
  });

  it('starts no attempt after the budget', async () => {
    const p = policy({ budgetMs: 30 });
    const { attempt, seen } = scripted([0, 1, 2, 3].map(() => ({ fault: deadlock, phase: 'may-commit' as const })));
    await expect(withRetries(attempt, p, giveUp)).rejects.toMatchObject({ code: 'store_unavailable' });
    // 20 ms, then 10 ms (what is left), then the budget is gone.
    expect(p.slept).toEqual([20, 10]);
    expect(seen).toHaveLength(3);
  });

  it('never retries an unknown outcome unless the operation allows it', async () => {
    const p = policy({ retryUnknown: false });
    const { attempt, seen } = scripted([{ fault: lost, phase: 'may-commit', host: 0 }, { ok: 1 }]);
    await expect(withRetries(attempt, p, giveUp)).rejects.toMatchObject({ message: 'gave up: unknown-outcome' });
    expect(seen).toHaveLength(1);
  });

  it('retries an unknown outcome where allowed (a claim: the lost segment is a gap), on another host', async () => {
    const p = policy({ retryUnknown: true });
    const { attempt, seen } = scripted([{ fault: queryTimeout, phase: 'may-commit', host: 0 }, { ok: 7 }]);
    expect(await withRetries(attempt, p, giveUp)).toBe(7);
    expect(seen.map((s) => s.exclude)).toEqual([[], [0]]);
  });

  it('retries a transaction whose connection died before COMMIT, even when unknown outcomes are not retried', async () => {
    const p = policy({ retryUnknown: false });
    const { attempt } = scripted([{ fault: lost, phase: 'uncommitted', host: 0 }, { ok: 'tx' }]);
    expect(await withRetries(attempt, p, giveUp)).toBe('tx');
  });

  it('does not retry a fatal error', async () => {
    const p = policy();
    const { attempt, seen } = scripted([{ fault: duplicate, phase: 'may-commit', host: 0 }, { ok: 1 }]);
    await expect(withRetries(attempt, p, giveUp)).rejects.toMatchObject({ message: 'gave up: fatal' });
    expect(seen).toHaveLength(1);
  });

  it('passes a LeafError of the operation through untouched, without retrying', async () => {
    let calls = 0;
    const refusal = new LeafError('tag_exists', 'exists');
    await expect(
      withRetries(
        async () => {
          calls++;
          throw refusal;
        },
        policy(),
        giveUp,
      ),
    ).rejects.toBe(refusal);
    expect(calls).toBe(1);
  });
});

describe('allowedHosts', () => {
  it.each([
    ['all fresh, none failed: every host, in order', [0, 0, 0], [], 10, [0, 1, 2]],
    ['the first set aside: the others', [20, 0, 0], [], 10, [1, 2]],
    ['set aside until now has passed: back', [10, 0, 0], [], 10, [0, 1, 2]],
    ['the second failed in this operation: the others', [0, 0, 0], [1], 10, [0, 2]],
    ['every fresh host failed: the set-aside ones not yet tried', [20, 0, 0], [1, 2], 10, [0]],
    ['every host failed in this operation: all again, rather than none', [20, 20, 0], [0, 1, 2], 10, [0, 1, 2]],
  ])('%s', (_, asideUntil, exclude, now, expected) => {
    expect(allowedHosts(asideUntil, new Set(exclude), now)).toEqual(expected);
  });
});

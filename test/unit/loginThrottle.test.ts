import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '@/lib/auth/loginThrottle';
import { type LeafError, isLeafError } from '@/lib/errors';
import { errorAnswer } from '@/lib/http/answer';
import { FakeClock } from '../support/fakes';

function refusal(throttle: LoginThrottle, address: string): LeafError | null {
  try {
    throttle.check(address);
    return null;
  } catch (error) {
    if (!isLeafError(error)) throw error;
    return error;
  }
}

describe('login throttle', () => {
  it('a few failures are free; then each one doubles the lock-out, capped, answered 429 with Retry-After', () => {
    const clock = new FakeClock();
    const t = new LoginThrottle({ clock, freeFailures: 3, baseLockMs: 1_000, maxLockMs: 8_000 });
    for (let i = 0; i < 3; i++) {
      expect(refusal(t, '10.0.0.1')).toBeNull();
      t.failure('10.0.0.1');
    }
    expect(t.lockedForMs('10.0.0.1'), 'three free failures').toBe(0);
    const locks: number[] = [];
    for (let i = 0; i < 6; i++) {
      t.failure('10.0.0.1');
      locks.push(t.lockedForMs('10.0.0.1'));
      const e = refusal(t, '10.0.0.1')!;
      expect(e.code).toBe('too_many_attempts');
      const answer = errorAnswer(e);
      expect(answer.status).toBe(429);
      expect(answer.headers['retry-after']).toBe(String(Math.ceil(locks[i]! / 1000)));
      clock.advance(locks[i]! - 1);
      expect(refusal(t, '10.0.0.1'), 'still locked 1 ms before the end').not.toBeNull();
      clock.advance(1);
      expect(refusal(t, '10.0.0.1'), 'free again when the lock-out ends').toBeNull();
    }
    expect(locks).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('is per address, and a success clears the address', () => {
    const clock = new FakeClock();
    const t = new LoginThrottle({ clock, freeFailures: 1 });
    t.failure('a');
    t.failure('a');
    expect(refusal(t, 'a')).not.toBeNull();
    expect(refusal(t, 'b'), 'another address is not affected').toBeNull();
    t.success('a');
    expect(refusal(t, 'a')).toBeNull();
    t.failure('a');
    expect(refusal(t, 'a'), 'after a success the free failures start again').toBeNull();
  });

  it('forgets an address that stopped failing, and remembers at most maxAddresses', () => {
    const clock = new FakeClock();
    const t = new LoginThrottle({
      clock,
      freeFailures: 0,
      baseLockMs: 1_000,
      maxLockMs: 60_000,
      forgetAfterMs: 60_000,
      maxAddresses: 3,
    });
    for (let i = 0; i < 5; i++) t.failure('x');
    expect(t.lockedForMs('x')).toBe(16_000);
    clock.advance(60_001);
    t.failure('x');
    expect(t.lockedForMs('x'), 'starts from the first lock-out again').toBe(1_000);

    for (const a of ['p', 'q', 'r', 's']) t.failure(a);
    expect(t.size).toBe(3);
    expect(t.lockedForMs('x'), 'the least recently failing address went first').toBe(0);
    expect(t.lockedForMs('p')).toBe(0);
    expect(t.lockedForMs('s')).toBe(1_000);
  });
});

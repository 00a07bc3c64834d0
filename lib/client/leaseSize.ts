/** Per tag, the next lease is asked for once this share of the current one is used (Leaf's preload point). */
export const PREFETCH_AT_USED = 0.1;
/** A lease may be at most this many times the one before it, so a short burst does not lease millions. */
export const MAX_LEASE_GROWTH = 10;

export interface LeaseLimits {
  /** The first lease of a tag, and the floor of every later one. */
  minLease: number;
  maxLease: number;
  /** How long a lease should last at the observed rate. */
  targetMs: number;
}

/** What the observed rate would use in `targetMs`, growing at most MAX_LEASE_GROWTH× per lease. */
export function nextLeaseSize(limits: LeaseLimits, previous: number, used: number, elapsedMs: number): number {
  if (previous <= 0) return limits.minLease;
  const atRate = Math.ceil((used * limits.targetMs) / Math.max(1, elapsedMs));
  const size = Math.min(atRate, previous * MAX_LEASE_GROWTH, limits.maxLease);
  return Math.max(limits.minLease, size);
}

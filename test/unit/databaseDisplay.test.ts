import { describe, expect, it } from 'vitest';
import type { HealthView, HostHealth } from '@/components/console/api';
import { showLatency, galeraSummary, sqliteLine } from '@/components/console/display';
import { hostProblems } from '@/lib/admin/hostHealth';

const synced = { state: 'Synced', clusterSize: 3, ready: true, clusterStatus: 'Primary' };
const sqlite = (over: Partial<HealthView['store']> = {}): HealthView['store'] => ({
  dialect: 'sqlite',
  reachable: true,
  latencyMs: 0.4,
  ...over,
});

describe('database panel formatting', () => {
  it('latency: one decimal below 100 ms, whole milliseconds above', () => {
    expect(showLatency(0.4)).toBe('0.4 ms');
    expect(showLatency(12.35)).toBe('12.4 ms');
    expect(showLatency(1000.3)).toBe('1,000 ms');
  });

  it('SQLite in one line', () => {
    expect(sqliteLine(sqlite())).toBe('Embedded SQLite — reachable, 0.4 ms');
    expect(sqliteLine(sqlite({ reachable: false, latencyMs: 1000, error: 'no answer within 1000 ms' }))).toBe(
      'Embedded SQLite — unreachable: no answer within 1000 ms',
    );
    expect(sqliteLine(sqlite({ reachable: false }))).toBe('Embedded SQLite — unreachable');
  });

  it('Galera summary: state, cluster size, component', () => {
    expect(galeraSummary(synced)).toBe('Synced · 3 nodes · Primary');
    expect(galeraSummary({ state: 'Initialized', clusterSize: 1, ready: false, clusterStatus: 'non-Primary' })).toBe(
      'Initialized · 1 node · non-Primary',
    );
  });

  it.each<[string, HostHealth, string[]]>([
    ['a healthy Galera node', { host: 'a:3306', reachable: true, latencyMs: 1, galera: synced }, []],
    ['a plain MySQL host', { host: 'a:3306', reachable: true, latencyMs: 1 }, []],
    [
      'an unreachable host, with its code',
      { host: 'a:3306', reachable: false, latencyMs: 3, error: 'ECONNREFUSED' },
      ['unreachable (ECONNREFUSED)'],
    ],
    ['an unreachable host without a code', { host: 'a:3306', reachable: false, latencyMs: 3 }, ['unreachable']],
    [
      'a donor',
      { host: 'a:3306', reachable: true, latencyMs: 1, galera: { ...synced, state: 'Donor/Desynced' } },
      ['not Synced (Donor/Desynced)'],
    ],
    [
      'an isolated minority node',
      {
        host: 'a:3306',
        reachable: true,
        latencyMs: 1,
        galera: { state: 'Initialized', clusterSize: 1, ready: false, clusterStatus: 'non-Primary' },
      },
      ['not Synced (Initialized)', 'non-Primary', 'not accepting queries'],
    ],
    [
      'a Synced node outside the Primary component',
      { host: 'a:3306', reachable: true, latencyMs: 1, galera: { ...synced, clusterStatus: 'non-Primary' } },
      ['non-Primary'],
    ],
  ])('problems of %s', (_, host, problems) => {
    expect(hostProblems(host)).toEqual(problems);
  });
});

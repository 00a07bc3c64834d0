import { describe, expect, it } from 'vitest';
import { hostProblems } from '@/lib/admin/hostHealth';
import { type RoleProbe, assignRoles, conninfoApplicationName } from '@/lib/store/postgres/roles';

const primary = (replicas: RoleProbe['replicas'], syncNames = ''): RoleProbe => ({
  standby: false,
  syncNames,
  receiverName: null,
  replicas,
});
const standby = (name: string | null): RoleProbe => ({
  standby: true,
  syncNames: '',
  receiverName: name,
  replicas: [],
});

describe('PostgreSQL host roles', () => {
  it('names the sync and the async standby as the primary lists them', () => {
    const roles = assignRoles([
      standby('pg2'),
      primary(
        [
          { name: 'pg2', state: 'sync' },
          { name: 'pg3', state: 'async' },
        ],
        '"pg2"',
      ),
      standby('pg3'),
    ]);
    expect(roles).toEqual([
      { role: 'sync standby' },
      { role: 'primary', synchronous: true },
      { role: 'async standby' },
    ]);
  });

  it('quorum counts as synchronous, potential as asynchronous', () => {
    const roles = assignRoles([
      primary(
        [
          { name: 'a', state: 'quorum' },
          { name: 'b', state: 'potential' },
        ],
        'ANY 1 (a, b)',
      ),
      standby('a'),
      standby('b'),
    ]);
    expect(roles.map((r) => r?.role)).toEqual(['primary', 'sync standby', 'async standby']);
  });

  it('a cluster whose replicas are all async: the primary says it is not synchronous, and that is a problem in words', () => {
    const roles = assignRoles([
      primary([
        { name: 'pg2', state: 'async' },
        { name: 'pg3', state: 'async' },
      ]),
      standby('pg2'),
      standby('pg3'),
    ]);
    expect(roles[0]).toEqual({ role: 'primary', synchronous: false });
    expect(hostProblems({ host: 'h1:5432', reachable: true, latencyMs: 1, postgres: roles[0]! })).toEqual([
      'no synchronous standby: a failover can lose acknowledged claims',
    ]);
    expect(hostProblems({ host: 'h2:5432', reachable: true, latencyMs: 1, postgres: roles[1]! })).toEqual([]);
  });

  it('without pg_monitor (states unreadable) the setting decides, and standbys are plain standbys', () => {
    const unreadable = [{ name: 'pg2', state: null }];
    expect(assignRoles([primary(unreadable, '"pg2"'), standby(null)])).toEqual([
      { role: 'primary', synchronous: true },
      { role: 'standby' },
    ]);
    expect(assignRoles([primary(unreadable, ''), standby(null)])).toEqual([
      { role: 'primary', synchronous: false },
      { role: 'standby' },
    ]);
  });

  it('a standby the primary does not list (not streaming from it) is a plain standby; no primary reachable: standbys only', () => {
    expect(assignRoles([primary([{ name: 'pg2', state: 'sync' }], 'pg2'), standby('pg9')])[1]).toEqual({
      role: 'standby',
    });
    expect(assignRoles([null, standby('pg2'), standby('pg3')])).toEqual([
      null,
      { role: 'standby' },
      { role: 'standby' },
    ]);
  });

  it('one host in the URL: a primary, no synchronous verdict (nothing to fail over to)', () => {
    expect(assignRoles([primary([])])).toEqual([{ role: 'primary' }]);
  });

  it('reads application_name from a WAL receiver conninfo, quoted or not', () => {
    expect(
      conninfoApplicationName(
        'user=replicator passfile=/tmp/pgpass host=127.0.0.1 port=5432 sslmode=prefer application_name=pg2 gssencmode=prefer',
      ),
    ).toBe('pg2');
    expect(conninfoApplicationName("host=127.0.0.1 application_name='node \\'b\\'' port=1")).toBe("node 'b'");
    expect(conninfoApplicationName('host=127.0.0.1 port=1')).toBeNull();
    expect(conninfoApplicationName(null)).toBeNull();
  });
});

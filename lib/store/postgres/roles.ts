import type { HostHealth } from '../leafStore';

export type PostgresRole = NonNullable<HostHealth['postgres']>['role'];

/** What one reachable host said about itself (hosts.ts reads it in one statement). */
export interface RoleProbe {
  /** pg_is_in_recovery() */
  standby: boolean;
  /** current_setting('synchronous_standby_names'): who a commit on this host waits for; '' = nobody. */
  syncNames: string;
  /** A standby's name as its primary sees it (its WAL receiver's application_name); null when not readable. */
  receiverName: string | null;
  /** A primary's streaming standbys by name; state null when the user may not read it (no pg_monitor). */
  replicas: Array<{ name: string; state: string | null }>;
}

/** Roles from every host's answer: the primary, and standbys as sync or async when the primary lists them. */
export function assignRoles(probes: Array<RoleProbe | null>): Array<NonNullable<HostHealth['postgres']> | null> {
  const primary = probes.find((p) => p !== null && !p.standby) ?? null;
  const byName = new Map((primary?.replicas ?? []).map((r) => [r.name, r.state]));
  return probes.map((p) => {
    if (p === null) return null;
    if (!p.standby) return probes.length > 1 ? { role: 'primary', synchronous: isSynchronous(p) } : { role: 'primary' };
    const state = p.receiverName === null ? undefined : byName.get(p.receiverName);
    return { role: standbyRole(state) };
  });
}

function standbyRole(state: string | null | undefined): PostgresRole {
  if (state === 'sync' || state === 'quorum') return 'sync standby';
  if (state === 'async' || state === 'potential') return 'async standby';
  return 'standby';
}

/** Known from sync_state where readable; else from the setting alone (a name configured, perhaps not connected). */
function isSynchronous(primary: RoleProbe): boolean {
  const states = primary.replicas.map((r) => r.state);
  if (states.length > 0 && states.every((s) => s !== null)) return states.some((s) => s === 'sync' || s === 'quorum');
  return primary.syncNames.trim() !== '';
}

/** application_name from a WAL receiver's conninfo (`key=value` pairs, values optionally single-quoted). */
export function conninfoApplicationName(conninfo: string | null): string | null {
  if (conninfo === null) return null;
  const match = /(?:^|\s)application_name\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S+))/.exec(conninfo);
  if (match === null) return null;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? null);
}

import { secretEquals, sessionActor } from '../auth/credentials';
import type { ConsoleSessions, SessionView } from '../auth/consoleSessions';
import type { LoginThrottle } from '../auth/loginThrottle';
import type { AuditAction } from '../audit';
import { LeafError } from '../errors';
import type { NodeParts } from './nodeParts';
import { type Requester, auditStamp } from './service';

type SessionRuntime = Pick<NodeParts, 'store' | 'logger' | 'config'> & {
  console: Pick<NodeParts['console'], 'admin'> & { sessions: ConsoleSessions };
};

/** Failed logins are recorded as this actor: a wrong token names no credential, and is never stored. */
export const ANONYMOUS = 'anonymous';

/** 429 while locked out, 401 for a wrong token; a session only once its row and its `auth.login` entry are written. */
export async function login(
  rt: SessionRuntime,
  throttle: LoginThrottle,
  presented: string,
  from: { address: string; userAgent: string },
): Promise<{ value: string; expiresAt: number; sessionId: string }> {
  const { address } = from;
  throttle.check(address);
  if (!secretEquals(presented, rt.console.admin.token)) {
    throttle.failure(address);
    await recordQuietly(rt, 'auth.login_failed', ANONYMOUS, address);
    throw new LeafError('unauthorized', 'Wrong token.');
  }
  throttle.success(address);
  const session = await rt.console.sessions.begin(address, from.userAgent, Date.now());
  await rt.store.audit.appendAudit({
    action: 'auth.login',
    ...auditStamp(rt, { actor: sessionActor(session.sessionId), address }),
  });
  return session;
}

/** Ends the caller's session (recorded); the cookie is cleared whether or not there was one. */
export async function logout(rt: SessionRuntime, sessionId: string | null, address: string): Promise<void> {
  if (sessionId === null) return;
  await rt.console.sessions.end([sessionId], Date.now());
  await recordQuietly(rt, 'auth.logout', sessionActor(sessionId), address);
}

/** The live sessions of the current admin token, newest first, the caller's own marked. */
export async function listSessions(
  rt: SessionRuntime,
  ownSessionId: string | null,
): Promise<Array<SessionView & { current: boolean }>> {
  return (await rt.console.sessions.live(Date.now())).map((s) => ({ ...s, current: s.id === ownSessionId }));
}

/** Ends one session (any operator's); 404 when it is not live. */
export async function endSession(rt: SessionRuntime, id: string, who: Requester): Promise<void> {
  const ended = await rt.console.sessions.end([id], Date.now());
  if (ended === 0) throw new LeafError('session_not_found', `No live session "${id}".`);
  await rt.store.audit.appendAudit({ action: 'auth.session_end', ...auditStamp(rt, who), before: { sessions: [id] } });
}

/** "Sign out everywhere": every session of the admin token ends, the caller's included. */
export async function endAllSessions(rt: SessionRuntime, who: Requester): Promise<number> {
  const ended = await rt.console.sessions.endAll(Date.now());
  await rt.store.audit.appendAudit({
    action: 'auth.sign_out_everywhere',
    ...auditStamp(rt, who),
    before: { sessions: ended },
  });
  return ended.length;
}

/** An entry that must not change the answer (a refused login stays 401 while the store is down): logged when lost. */
async function recordQuietly(rt: SessionRuntime, action: AuditAction, actor: string, address: string): Promise<void> {
  try {
    await rt.store.audit.appendAudit({ action, ...auditStamp(rt, { actor, address }) });
  } catch (error) {
    rt.logger.log('warn', 'audit_not_recorded', { action, address, error });
  }
}

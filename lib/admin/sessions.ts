import { createSessionValue, secretEquals, sessionActor } from '../auth/credentials';
import type { LoginThrottle } from '../auth/loginThrottle';
import { LeafError } from '../errors';
import type { NodeParts } from './nodeParts';
import { auditStamp } from './service';

type SessionRuntime = Pick<NodeParts, 'store' | 'logger' | 'config'> & {
  console: Pick<NodeParts['console'], 'admin'>;
};

/** Failed logins are recorded as this actor: a wrong token names no credential, and is never stored. */
export const ANONYMOUS = 'anonymous';

/** 429 while locked out, 401 for a wrong token; a session only once its `auth.login` entry is written. */
export async function login(
  rt: SessionRuntime,
  throttle: LoginThrottle,
  presented: string,
  address: string,
): Promise<{ value: string; expiresAt: number; sessionId: string }> {
  throttle.check(address);
  if (!secretEquals(presented, rt.console.admin.token)) {
    throttle.failure(address);
    await recordQuietly(rt, 'auth.login_failed', ANONYMOUS, address);
    throw new LeafError('unauthorized', 'Wrong token.');
  }
  throttle.success(address);
  const session = createSessionValue(rt.console.admin.token, Date.now());
  await rt.store.audit.appendAudit({
    action: 'auth.login',
    ...auditStamp(rt, { actor: sessionActor(session.sessionId), address }),
  });
  return session;
}

/** The logout of a valid session is recorded; the cookie is cleared whether or not the record could be written. */
export async function logout(rt: SessionRuntime, actor: string | null, address: string): Promise<void> {
  if (actor?.startsWith('session:')) await recordQuietly(rt, 'auth.logout', actor, address);
}

/** An entry that must not change the answer (a refused login stays 401 while the store is down): logged when lost. */
async function recordQuietly(
  rt: SessionRuntime,
  action: 'auth.login_failed' | 'auth.logout',
  actor: string,
  address: string,
): Promise<void> {
  try {
    await rt.store.audit.appendAudit({ action, ...auditStamp(rt, { actor, address }) });
  } catch (error) {
    rt.logger.log('warn', 'audit_not_recorded', { action, address, error });
  }
}

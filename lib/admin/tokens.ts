import { newScopedToken } from '../auth/scopedTokens';
import { type Clock, systemClock } from '../clock';
import type { NodeParts } from './nodeParts';
import { tokenNotFound } from '../errors';
import { type CreateTokenInput, TOKEN_ID_PATTERN } from './schema';
import { type Requester, auditStamp } from './service';
import type { CreatedToken, TokenView } from './views';

/** Per-tag access tokens for the admin API: create (the token shown this once), list (never the token), revoke. */
type TokenRuntime = Pick<NodeParts, 'store' | 'tokens' | 'config'>;

export async function listTokens(rt: Pick<NodeParts, 'store'>): Promise<TokenView[]> {
  return (await rt.store.tokens.listTokens()).map(({ tokenHash: _hash, ...row }) => row);
}

export async function createToken(
  rt: TokenRuntime,
  input: CreateTokenInput,
  who: Requester,
  clock: Clock = systemClock,
): Promise<CreatedToken> {
  const { id, secret, hash } = newScopedToken();
  const stamp = auditStamp(rt, who, clock);
  const token = await rt.store.tokens.createToken(
    {
      id,
      name: input.name,
      tags: input.tags,
      tokenHash: hash,
      createdAt: stamp.at,
      createdBy: who.actor,
      revokedAt: null,
    },
    stamp,
  );
  // This node serves the token at once; the others within LEAF_TOKEN_REFRESH_MS.
  await rt.tokens.refresh();
  return { token, secret };
}

export async function revokeToken(
  rt: TokenRuntime,
  id: string,
  who: Requester,
  clock: Clock = systemClock,
): Promise<TokenView> {
  if (!TOKEN_ID_PATTERN.test(id)) throw tokenNotFound(id.slice(0, 32));
  const stamp = auditStamp(rt, who, clock);
  const token = await rt.store.tokens.revokeToken(id, stamp.at, stamp);
  await rt.tokens.refresh();
  return token;
}

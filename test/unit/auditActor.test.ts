import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseAuditQuery } from '@/lib/admin/service';
import { createSessionValue, credentialOf, sessionIdOf, tokenActor } from '@/lib/auth/credentials';
import { isLeafError } from '@/lib/errors';
import { CLIENT_ADDRESS_HEADER, clientAddress, socketAddress } from '@/lib/http/clientAddress';

const NOW = 1_800_000_000_000;
const TOKEN = 'the-admin-token-0123456789';

describe('audit actor', () => {
  it('a Bearer token is named by 8 hex of its sha256, never the token', () => {
    const actor = credentialOf(TOKEN, { authorization: `Bearer ${TOKEN}` }, NOW)!;
    expect(actor).toBe(`token:${createHash('sha256').update(TOKEN).digest('hex').slice(0, 8)}`);
    expect(actor).toBe(tokenActor(TOKEN));
    expect(actor).not.toContain(TOKEN.slice(0, 6));
    expect(credentialOf(TOKEN, { authorization: 'Bearer wrong' }, NOW)).toBeNull();
  });

  it('a session is named by the random id inside its signed cookie', () => {
    const a = createSessionValue(TOKEN, NOW);
    const b = createSessionValue(TOKEN, NOW);
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(credentialOf(TOKEN, { cookie: `leaf_session=${a.value}` }, NOW)).toBe(`session:${a.sessionId}`);
    expect(sessionIdOf(TOKEN, a.value, NOW)).toBe(a.sessionId);
    // Another id under the same signature is refused: the id is signed too.
    const [expiry, , signature] = a.value.split('.');
    expect(sessionIdOf(TOKEN, `${expiry}.${b.sessionId}.${signature}`, NOW)).toBeNull();
    // Signed with another token (the token was rotated): refused.
    expect(sessionIdOf('rotated-token-0123456789', a.value, NOW)).toBeNull();
    expect(credentialOf('rotated-token-0123456789', { cookie: `leaf_session=${a.value}` }, NOW)).toBeNull();
  });
});

describe('client address', () => {
  it('is what server.ts stamped, an IPv4 client without its ::ffff: prefix; unknown without the stamp', () => {
    expect(socketAddress('::ffff:192.0.2.4')).toBe('192.0.2.4');
    expect(socketAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(socketAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(socketAddress(undefined)).toBe('unknown');
    expect(clientAddress(new Headers({ [CLIENT_ADDRESS_HEADER]: '192.0.2.4' }))).toBe('192.0.2.4');
    expect(clientAddress(new Headers())).toBe('unknown');
  });
});

describe('audit query', () => {
  const parse = (q: string) => parseAuditQuery(new URLSearchParams(q));
  const fieldsOf = (q: string) => {
    try {
      parse(q);
    } catch (error) {
      if (isLeafError(error) && error.code === 'validation_failed') return Object.keys(error.fields ?? {});
      throw error;
    }
    throw new Error(`${q} was accepted`);
  };

  it('defaults and bounds', () => {
    expect(parse('')).toEqual({ limit: 50 });
    expect(parse('before=17&limit=200&tag=orders.v2')).toEqual({ before: 17, limit: 200, tag: 'orders.v2' });
    expect(parse('limit=1')).toEqual({ limit: 1 });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['before=0', 'before'],
    ['before=abc', 'before'],
    ['before=99999999999999999999', 'before'],
    ['tag=bad%20tag', 'tag'],
    ['tag=', 'tag'],
    ['limit=1&limit=2', 'limit'],
    ['order=asc', 'order'],
  ])('%s → validation_failed on %s', (q, field) => {
    expect(fieldsOf(q)).toContain(field);
  });
});

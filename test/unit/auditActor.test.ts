import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseAuditQuery } from '@/lib/admin/service';
import { createSessionValue, sessionActor, sessionIdOf, tokenActor } from '@/lib/auth/credentials';
import { isLeafError } from '@/lib/errors';
import { CLIENT_ADDRESS_HEADER, clientAddress, requestAddress, socketAddress } from '@/lib/http/clientAddress';
import { parseTrustedProxies, proxyMatcher } from '@/lib/trustedProxies';

const NOW = 1_800_000_000_000;
const TOKEN = 'the-admin-token-0123456789';

describe('audit actor', () => {
  it('a Bearer token is named by 8 hex of its sha256, never the token', () => {
    const actor = tokenActor(TOKEN);
    expect(actor).toBe(`token:${createHash('sha256').update(TOKEN).digest('hex').slice(0, 8)}`);
    expect(actor).not.toContain(TOKEN.slice(0, 6));
  });

  it('a session is named by the random id inside its signed cookie', () => {
    const a = createSessionValue(TOKEN, NOW);
    const b = createSessionValue(TOKEN, NOW);
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(sessionIdOf(TOKEN, a.value, NOW)).toBe(a.sessionId);
    expect(sessionActor(a.sessionId)).toBe(`session:${a.sessionId}`);
    // Another id under the same signature is refused: the id is signed too.
    const [expiry, , signature] = a.value.split('.');
    expect(sessionIdOf(TOKEN, `${expiry}.${b.sessionId}.${signature}`, NOW)).toBeNull();
    // Signed with another token (the token was rotated): refused.
    expect(sessionIdOf('rotated-token-0123456789', a.value, NOW)).toBeNull();
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

describe('client address behind a load balancer (LEAF_TRUSTED_PROXIES)', () => {
  const proxies = proxyMatcher(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
  it.each<[string, string | undefined, string | string[] | undefined, string]>([
    ['no X-Forwarded-For: the socket', '10.0.0.2', undefined, '10.0.0.2'],
    ['from a trusted proxy: the hop it appended', '10.0.0.2', '203.0.113.7', '203.0.113.7'],
    ['IPv4-mapped proxy socket', '::ffff:127.0.0.1', '203.0.113.7', '203.0.113.7'],
    ['what the client wrote at the left is not believed', '10.0.0.2', '198.51.100.1, 203.0.113.7', '203.0.113.7'],
    [
      'a chain of trusted proxies is walked from the right',
      '10.0.0.2',
      '203.0.113.7, 10.1.1.1, fd00::5',
      '203.0.113.7',
    ],
    ['several header lines count as one list', '10.0.0.2', ['203.0.113.7', '10.1.1.1'], '203.0.113.7'],
    ['every hop trusted: the leftmost', '10.0.0.2', '10.9.9.9, 10.1.1.1', '10.9.9.9'],
    ['a hop that is no address: the socket', '10.0.0.2', 'garbage', '10.0.0.2'],
    ['from a socket that is no trusted proxy: its header is ignored', '203.0.113.9', '198.51.100.1', '203.0.113.9'],
  ])('%s', (_, socket, header, expected) => {
    expect(requestAddress(socket, header, proxies)).toBe(expected);
  });
  it('without trusted proxies the header is never read', () => {
    expect(requestAddress('127.0.0.1', '203.0.113.7', null)).toBe('127.0.0.1');
  });
  it('LEAF_TRUSTED_PROXIES entries are addresses or CIDR ranges', () => {
    expect(parseTrustedProxies('127.0.0.1,::1, 10.0.0.0/8,')).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    expect(parseTrustedProxies('10.0.0.0/8/1')).toEqual({ problem: '"10.0.0.0/8/1" is neither' });
    expect(parseTrustedProxies('::1/129')).toEqual({ problem: '"::1/129" is neither' });
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

import { describe, expect, it } from 'vitest';
import { foreignWrite, requestScheme } from '../../lib/http/origin';

const headers = (h: Record<string, string>) => new Headers(h);
const HOST = { host: 'leaf.example.com:3000' };

describe('foreignWrite: a write not authenticated by a Bearer token, from another origin', () => {
  it.each([
    ['a same-origin fetch', 'POST', { ...HOST, 'sec-fetch-site': 'same-origin' }, null],
    [
      'a typed-in navigation (Sec-Fetch-Site: none)',
      'POST',
      { ...HOST, 'sec-fetch-site': 'none' },
      'Sec-Fetch-Site: none',
    ],
    ['a sibling subdomain', 'POST', { ...HOST, 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site: same-site'],
    ['another site', 'DELETE', { ...HOST, 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site: cross-site'],
    ['Origin of this host', 'PATCH', { ...HOST, origin: 'http://leaf.example.com:3000' }, null],
    ['Origin of this host over TLS', 'PATCH', { ...HOST, origin: 'https://leaf.example.com:3000' }, null],
    [
      'Origin of a sibling',
      'POST',
      { ...HOST, origin: 'http://evil.example.com:3000' },
      'Origin: http://evil.example.com:3000',
    ],
    [
      'Origin on another port',
      'POST',
      { ...HOST, origin: 'http://leaf.example.com:4000' },
      'Origin: http://leaf.example.com:4000',
    ],
    ['Origin null (a sandboxed frame)', 'POST', { ...HOST, origin: 'null' }, 'Origin: null'],
    ['no Origin, no Sec-Fetch-Site (curl, a script)', 'POST', HOST, null],
    ['a read from anywhere', 'GET', { ...HOST, 'sec-fetch-site': 'cross-site' }, null],
    // The header is not the pipeline's judgement of a credential: a Basic header (added by a browser behind a
    // Basic-auth proxy), an empty one or a Bearer one all leave the origin to be checked here.
    [
      'Authorization: Basic from elsewhere',
      'POST',
      { ...HOST, origin: 'http://evil.example', authorization: 'Basic dXNlcjpwYXNz' },
      'Origin: http://evil.example',
    ],
    [
      'Authorization: (empty) from elsewhere',
      'POST',
      { ...HOST, 'sec-fetch-site': 'same-site', authorization: '' },
      'Sec-Fetch-Site: same-site',
    ],
  ])('%s', (_, method, h, expected) => {
    expect(foreignWrite(method, headers(h))).toBe(expected);
  });

  it('Sec-Fetch-Site is believed over Origin (a browser that sends both)', () => {
    expect(
      foreignWrite(
        'POST',
        headers({ ...HOST, 'sec-fetch-site': 'cross-site', origin: 'http://leaf.example.com:3000' }),
      ),
    ).toBe('Sec-Fetch-Site: cross-site');
  });
});

describe('requestScheme', () => {
  it.each([
    [false, 'https', 'http'],
    [true, 'https', 'https'],
    [true, 'HTTPS', 'https'],
    [true, 'http', 'http'],
    [true, 'https, http', 'http'],
    [true, 'http, https', 'https'],
    [true, undefined, 'http'],
  ] as const)('trusted proxy %s, X-Forwarded-Proto %s → %s', (trusted, proto, scheme) => {
    expect(requestScheme(trusted, proto)).toBe(scheme);
  });
});

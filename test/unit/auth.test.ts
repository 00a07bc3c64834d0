import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAdminToken } from '@/lib/auth/adminToken';
import {
  SESSION_TTL_MS,
  createSessionValue,
  isAuthorized,
  readCookie,
  verifySessionValue,
} from '@/lib/auth/credentials';

const NOW = 1_800_000_000_000;

describe('admin credentials', () => {
  it('accepts the token as Bearer, refuses others', () => {
    expect(isAuthorized('s3cret', { authorization: 'Bearer s3cret' }, NOW)).toBe(true);
    expect(isAuthorized('s3cret', { authorization: 'bearer   s3cret ' }, NOW)).toBe(true);
    expect(isAuthorized('s3cret', { authorization: 'Bearer s3cre' }, NOW)).toBe(false);
    expect(isAuthorized('s3cret', { authorization: 'Basic s3cret' }, NOW)).toBe(false);
    expect(isAuthorized('s3cret', {}, NOW)).toBe(false);
  });

  it('session cookies are signed with the token and expire', () => {
    const { value } = createSessionValue('tok', NOW);
    expect(verifySessionValue('tok', value, NOW + 1000)).toBe(true);
    expect(verifySessionValue('other-token', value, NOW + 1000)).toBe(false);
    expect(verifySessionValue('tok', value, NOW + SESSION_TTL_MS + 1)).toBe(false);
    const [exp, id, sig] = value.split('.');
    expect(verifySessionValue('tok', `${Number(exp) + 1000}.${id}.${sig}`, NOW)).toBe(false); // extended expiry: bad signature
    for (const bad of [
      '',
      '.',
      'abc',
      '123',
      '123.',
      'x.y',
      `${exp}.${sig}`,
      `${exp}.${id}.${sig}.x`,
      `${exp}..${sig}`,
    ]) {
      expect(verifySessionValue('tok', bad, NOW)).toBe(false);
    }
    expect(isAuthorized('tok', { cookie: `theme=dark; leaf_session=${value}` }, NOW)).toBe(true);
    // A wrong Bearer is not rescued by a good cookie.
    expect(isAuthorized('tok', { authorization: 'Bearer nope', cookie: `leaf_session=${value}` }, NOW)).toBe(false);
  });

  it('reads cookies by name', () => {
    expect(readCookie('a=1; b=2', 'b')).toBe('2');
    expect(readCookie('ab=1', 'a')).toBeNull();
    expect(readCookie(undefined, 'a')).toBeNull();
  });

  it('generates the token once into the data dir, mode 600, and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-token-'));
    try {
      const first = resolveAdminToken({ token: null, dataDir: dir });
      expect(first.generated).toBe(true);
      expect(first.token.length).toBeGreaterThanOrEqual(32);
      expect(fs.statSync(first.file!).mode & 0o777).toBe(0o600);
      const second = resolveAdminToken({ token: null, dataDir: dir });
      expect(second).toMatchObject({ token: first.token, generated: false });
      expect(resolveAdminToken({ dataDir: dir, token: 'from-env' })).toMatchObject({
        token: 'from-env',
        generated: false,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAdminToken } from '@/lib/auth/adminToken';
import { SESSION_TTL_MS, createSessionValue, bearer, readCookie, verifySessionValue } from '@/lib/auth/credentials';

const NOW = 1_800_000_000_000;

describe('admin credentials', () => {
  it('reads a Bearer credential, and nothing else, from Authorization', () => {
    expect(bearer('Bearer s3cret')).toBe('s3cret');
    expect(bearer('bearer   s3cret ')).toBe('s3cret');
    expect(bearer('Basic s3cret')).toBeNull();
    expect(bearer('')).toBeNull();
    expect(bearer(null)).toBeNull();
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
    expect(readCookie(`theme=dark; leaf_session=${value}`, 'leaf_session')).toBe(value);
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

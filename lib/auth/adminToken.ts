import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface AdminToken {
  token: string;
  /** True when this start generated it: the server prints the login URL once. */
  generated: boolean;
  /** Where a generated token is kept. */
  file: string | null;
}

/** LEAF_ADMIN_TOKEN, else one generated at first start into `<data dir>/admin-token` (mode 600). */
export function resolveAdminToken({
  token: configured,
  dataDir,
}: {
  token: string | null;
  dataDir: string;
}): AdminToken {
  if (configured !== null) return { token: configured, generated: false, file: null };
  const file = path.join(dataDir, 'admin-token');
  const existing = readToken(file);
  if (existing !== null) return { token: existing, generated: false, file };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const token = randomBytes(24).toString('base64url');
  try {
    fs.writeFileSync(file, token + '\n', { flag: 'wx', mode: 0o600 });
    return { token, generated: true, file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { token: readToken(file) ?? token, generated: false, file }; // another process won the race
  }
}

function readToken(file: string): string | null {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return text.length > 0 ? text : null;
  } catch {
    return null;
  }
}

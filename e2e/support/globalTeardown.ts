import fs from 'node:fs';

/** Removes the server's throwaway data directory (SQLite file). */
export default function globalTeardown(): void {
  const dir = process.env.LEAF_E2E_DIR;
  if (dir && dir.includes('leaf-e2e-')) fs.rmSync(dir, { recursive: true, force: true });
}

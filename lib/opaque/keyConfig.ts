/** LEAF_OPAQUE_KEY / LEAF_OPAQUE_KEY_FILE and LEAF_OPAQUE_RETIRED_KEYS_FILE, read into a key ring (or none). */
import fs from 'node:fs';
import { LeafError } from '../errors';
import { MIN_OPAQUE_KEY_BYTES, type OpaqueKey, opaqueKeyBytes, opaqueKeyFromText } from './key';
import { OpaqueKeyRing } from './keyRing';

export interface OpaqueKeyVariables {
  LEAF_OPAQUE_KEY?: string;
  LEAF_OPAQUE_KEY_FILE?: string;
  LEAF_OPAQUE_RETIRED_KEYS_FILE?: string;
}

/** null: no opaque tag can be served here (nor a retired key given without a current one). */
export function readOpaqueKeys(e: OpaqueKeyVariables): OpaqueKeyRing | null {
  const current = readCurrentKey(e.LEAF_OPAQUE_KEY, e.LEAF_OPAQUE_KEY_FILE);
  const retiredFile = e.LEAF_OPAQUE_RETIRED_KEYS_FILE;
  if (current === null) {
    if (retiredFile !== undefined) {
      throw invalid(
        'LEAF_OPAQUE_RETIRED_KEYS_FILE needs LEAF_OPAQUE_KEY (or its file): new opaque tags take the current key',
      );
    }
    return null;
  }
  const retired = retiredFile === undefined ? [] : readRetiredKeys(retiredFile);
  if (retired.some((key) => key.id === current.id)) {
    throw invalid(`LEAF_OPAQUE_RETIRED_KEYS_FILE holds the current key (${current.id}) too: keep it in one place`);
  }
  try {
    return new OpaqueKeyRing(current, retired);
  } catch (error) {
    throw invalid(`LEAF_OPAQUE_RETIRED_KEYS_FILE: ${(error as Error).message}`);
  }
}

function readCurrentKey(text: string | undefined, file: string | undefined): OpaqueKey | null {
  if (text !== undefined && file !== undefined) throw invalid('Set LEAF_OPAQUE_KEY or LEAF_OPAQUE_KEY_FILE, not both');
  if (text !== undefined) return opaqueKeyFromText(text);
  if (file === undefined) return null;
  const content = readSecretFile('LEAF_OPAQUE_KEY_FILE', file);
  if (opaqueKeyBytes(content) < MIN_OPAQUE_KEY_BYTES) {
    throw invalid(
      `LEAF_OPAQUE_KEY_FILE ${JSON.stringify(file)} must hold at least ${MIN_OPAQUE_KEY_BYTES} bytes of secret (got ${opaqueKeyBytes(content)})`,
    );
  }
  return opaqueKeyFromText(content);
}

/** One key per line; blank lines are skipped. A line's number, never its text, names a bad one. */
function readRetiredKeys(file: string): OpaqueKey[] {
  const keys: OpaqueKey[] = [];
  const lines = readSecretFile('LEAF_OPAQUE_RETIRED_KEYS_FILE', file).split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    if (opaqueKeyBytes(line) < MIN_OPAQUE_KEY_BYTES) {
      throw invalid(
        `LEAF_OPAQUE_RETIRED_KEYS_FILE ${JSON.stringify(file)} line ${index + 1} must hold at least ${MIN_OPAQUE_KEY_BYTES} bytes of secret (got ${opaqueKeyBytes(line)})`,
      );
    }
    keys.push(opaqueKeyFromText(line));
  }
  return keys;
}

function readSecretFile(name: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(
      `${name} ${JSON.stringify(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function invalid(line: string): LeafError {
  return new LeafError('invalid_config', line);
}

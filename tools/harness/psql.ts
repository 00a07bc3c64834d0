/**
 * Debian's `psql` as a bounded query runner for the PostgreSQL harness (no driver needed in node_modules): one
 * short-lived process per call, connect and statement both time-limited, rows returned as string arrays.
 */
import { execFile } from 'node:child_process';

export const PG_BIN_DIR = '/usr/lib/postgresql/15/bin';

export interface PsqlOptions {
  /** Bound for the whole call (connect + statements); the process is killed after it. */
  timeoutMs?: number;
  /** libpq's connect_timeout per host, in seconds. */
  connectTimeoutS?: number;
  binDir?: string;
}

export class PsqlError extends Error {
  constructor(
    message: string,
    /** psql's stderr: PostgreSQL's own error text. */
    readonly stderr: string,
  ) {
    super(message);
  }
}

/**
 * Runs each of `statements` (one `-c` each, so each is its own transaction: CREATE DATABASE is allowed) against
 * `conninfo` (a URL or "key=value" string). Resolves to the rows of every statement that returned any, tab-split.
 */
export async function psql(
  conninfo: string,
  statements: string | string[],
  options: PsqlOptions = {},
): Promise<string[][]> {
  return (await psqlRun(conninfo, statements, options)).rows;
}

/** psql() that also gives what the server said besides the rows (its WARNINGs and NOTICEs, on psql's stderr). */
export function psqlRun(
  conninfo: string,
  statements: string | string[],
  options: PsqlOptions = {},
): Promise<{ rows: string[][]; stderr: string }> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const list = typeof statements === 'string' ? [statements] : statements;
  const args = [
    '-X',
    '-q',
    '-A',
    '-t',
    '-F',
    '\t',
    '-v',
    'ON_ERROR_STOP=1',
    '-d',
    conninfo,
    ...list.flatMap((s) => ['-c', s]),
  ];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    PGCONNECT_TIMEOUT: String(options.connectTimeoutS ?? 3),
    // The server ends a statement running longer than the call's bound; the kill below ends a hung connect, or a
    // commit waiting for a sync standby (statement_timeout does not cover that wait).
    PGOPTIONS: `-c statement_timeout=${timeoutMs}`,
  };
  return new Promise((resolve, reject) => {
    execFile(
      `${options.binDir ?? PG_BIN_DIR}/psql`,
      args,
      { env: env as NodeJS.ProcessEnv, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error) {
          const what = (error as { killed?: boolean }).killed
            ? `timed out after ${timeoutMs} ms`
            : `exited with ${String((error as { code?: unknown }).code)}`;
          reject(new PsqlError(`psql ${what}: ${stderr.trim() || '(no stderr)'}`, stderr));
          return;
        }
        const rows = stdout
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.split('\t'));
        resolve({ rows, stderr });
      },
    );
  });
}

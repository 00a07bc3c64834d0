import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { storeUnavailable } from '../../errors';
import { migrateSqlite } from './migrate';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  file: string;
  /** How long a writer waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
  /** Root of the per-dialect migrations; `./drizzle` by default. */
  migrationsDir?: string;
}

/** The statements of the concern files run on this: drizzle over better-sqlite3, synchronous. */
export type SqliteDb = BetterSQLite3Database;

/** One SQLite file in WAL mode, shared by processes; transactions BEGIN IMMEDIATE (the write lock first). */
export class SqliteExecutor {
  readonly db: SqliteDb;
  /** True when this open created the database file, e.g. to seed a demo tag on first start. */
  readonly created: boolean;
  private readonly sqlite: Database.Database;
  private readonly prepared = new Map<string, Database.Statement>();

  constructor({ file, busyTimeoutMs = 5_000, migrationsDir }: SqliteOptions) {
    const inMemory = file === ':memory:';
    if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.created = inMemory || !fs.existsSync(file);
    this.sqlite = new Database(file, { timeout: busyTimeoutMs });
    try {
      // Switching a brand-new file to WAL takes a lock the busy handler does not wait for: retry it ourselves
      // while several processes open the same new file at once.
      retryWhileBusy(() => this.sqlite.pragma('journal_mode = WAL'), busyTimeoutMs);
      this.sqlite.pragma('synchronous = NORMAL');
      migrateSqlite(this.sqlite, migrationsDir);
    } catch (error) {
      this.sqlite.close();
      throw storeUnavailable(error);
    }
    this.db = drizzle(this.sqlite);
  }

  read<T>(work: (db: SqliteDb) => T): T {
    return this.guard(() => work(this.db));
  }

  /** One statement, atomic by itself. */
  write<T>(work: (db: SqliteDb) => T): T {
    return this.guard(() => work(this.db));
  }

  /** One conditional statement (a claim): true when it changed exactly one row. */
  changedOne(statement: (db: SqliteDb) => { changes: number }): boolean {
    return this.write(statement).changes === 1;
  }

  /** BEGIN IMMEDIATE … COMMIT around `work`; a throw rolls back. */
  transaction<T>(work: (db: SqliteDb) => T): T {
    const tx = this.sqlite.transaction(() => work(this.db));
    return this.guard(() => tx.immediate());
  }

  /** A statement prepared once per text (the claim log's insert, on every claim): no SQL built or parsed again. */
  statement(text: string): Database.Statement {
    let prepared = this.prepared.get(text);
    if (prepared === undefined) {
      prepared = this.sqlite.prepare(text);
      this.prepared.set(text, prepared);
    }
    return prepared;
  }

  ping(): void {
    this.guard(() => this.sqlite.prepare('SELECT 1').get());
  }

  close(): void {
    if (this.sqlite.open) this.sqlite.close();
  }

  /** Typed errors pass through; driver errors become store_unavailable. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw storeUnavailable(error);
    }
  }
}

function retryWhileBusy<T>(fn: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      return fn();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if ((code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') || Date.now() >= deadline) throw error;
      // A synchronous constructor has no event loop to yield to; Atomics.wait sleeps without spinning.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay);
    }
  }
}

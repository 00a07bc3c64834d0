import type { SessionRow, SessionStore } from '../../auth/sessionStore';
import { type RawSessionRow, sessionFromRaw, sessionSql } from '../rows/sessions';
import type { SqliteExecutor } from './executor';

/** leaf_session on SQLite: single statements. */
export class SqliteSessions implements SessionStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async insertSession(row: SessionRow): Promise<void> {
    this.exec.write((db) => db.run(sessionSql.insert(row)));
  }

  async getSession(id: string): Promise<SessionRow | null> {
    const row = this.exec.read((db) => db.get<RawSessionRow | undefined>(sessionSql.get(id)));
    return row === undefined ? null : sessionFromRaw(row);
  }

  async touchSession(id: string, at: number): Promise<void> {
    this.exec.write((db) => db.run(sessionSql.touch(id, at)));
  }

  async liveSessions(tokenTag: string, now: number): Promise<SessionRow[]> {
    return this.exec.read((db) => db.all<RawSessionRow>(sessionSql.live(tokenTag, now))).map(sessionFromRaw);
  }

  async endSessions(ids: string[], at: number): Promise<number> {
    if (ids.length === 0) return 0;
    return this.exec.write((db) => db.run(sessionSql.end(ids, at))).changes;
  }

  async pruneSessions(before: number): Promise<number> {
    return this.exec.write((db) => db.run(sessionSql.prune(before))).changes;
  }
}

import type { SessionRow, SessionStore } from '../../auth/sessionStore';
import { type RawSessionRow, sessionFromRaw, sessionSql } from '../rows/sessions';
import type { ServerExecutor } from '../serverExecutor';

/** leaf_session on a database server: single statements, each safe to run twice. */
export class ServerSessions implements SessionStore {
  constructor(private readonly exec: ServerExecutor) {}

  async insertSession(row: SessionRow): Promise<void> {
    await this.exec.write(sessionSql.insert(row), false); // a random id: a duplicate key after a retry is a failure
  }

  async getSession(id: string): Promise<SessionRow | null> {
    const [row] = await this.exec.read<RawSessionRow>(sessionSql.get(id));
    return row === undefined ? null : sessionFromRaw(row);
  }

  async touchSession(id: string, at: number): Promise<void> {
    await this.exec.write(sessionSql.touch(id, at), true);
  }

  async liveSessions(tokenTag: string, now: number): Promise<SessionRow[]> {
    return (await this.exec.read<RawSessionRow>(sessionSql.live(tokenTag, now))).map(sessionFromRaw);
  }

  async endSessions(ids: string[], at: number): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.exec.write(sessionSql.end(ids, at), true)).affected;
  }

  async pruneSessions(before: number): Promise<number> {
    return (await this.exec.write(sessionSql.prune(before), true)).affected;
  }
}

import type { PinnedSetting, SettingStore } from '../../settings/settingStore';
import { type RawSettingRow, pinnedFromRaw, replaceSettingSql, selectSettingSql } from '../rows/settings';
import { leafSetting } from '../schema/sqlite';
import type { SqliteExecutor } from './executor';
import { DB_NOW_MS } from './sql';

/** leaf_setting on SQLite: insert-if-absent, then read what is there. */
export class SqliteSettings implements SettingStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async pinSetting(name: string, value: string, setBy: string): Promise<PinnedSetting> {
    this.exec.write((db) =>
      db.insert(leafSetting).values({ name, value, setBy, setAt: DB_NOW_MS }).onConflictDoNothing().run(),
    );
    return pinnedFromRaw(
      this.exec.read((db) => db.get<RawSettingRow>(selectSettingSql(name))),
      name,
    );
  }

  async replaceSetting(name: string, expected: string, value: string, setBy: string): Promise<boolean> {
    return this.exec.changedOne((db) => db.run(replaceSettingSql(name, expected, value, setBy, DB_NOW_MS)));
  }
}

import type { PinnedSetting, SettingStore } from '../../settings/settingStore';
import { type RawSettingRow, pinnedFromRaw, replaceSettingSql, selectSettingSql } from '../rows/settings';
import type { ServerExecutor } from '../serverExecutor';
import type { ServerDialect } from './dialect';
import { TABLE } from './query';

/** leaf_setting on a server: insert-if-absent, then read what is there. */
export class ServerSettings implements SettingStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async pinSetting(name: string, value: string, setBy: string): Promise<PinnedSetting> {
    const row = { name, value, set_by: setBy, set_at: this.dialect.nowMs };
    await this.exec.write(this.dialect.insertIgnore(TABLE.setting, row), true); // twice still writes one row
    return pinnedFromRaw((await this.exec.read<RawSettingRow>(selectSettingSql(name)))[0], name);
  }

  replaceSetting(name: string, expected: string, value: string, setBy: string): Promise<boolean> {
    // Run twice, the second finds our value and changes nothing: callers read the record back either way.
    return this.exec.changedOne(replaceSettingSql(name, expected, value, setBy, this.dialect.nowMs), true);
  }
}

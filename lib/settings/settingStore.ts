/** A setting as the fleet recorded it: the first node's value, who that was and when (ms, database clock). */
export interface PinnedSetting {
  value: string;
  setBy: string;
  setAt: number;
}

/** leaf_setting: values every node of a fleet must share, recorded once by the first node. */
export interface SettingStore {
  /** Records `value` under `name` unless a value is there, then answers the recorded one (ours or the first's). */
  pinSetting(name: string, value: string, setBy: string): Promise<PinnedSetting>;
  /** Compare-and-set: writes `value` only while the record is `expected`; true when this call changed it. */
  replaceSetting(name: string, expected: string, value: string, setBy: string): Promise<boolean>;
}

import type { SettingStore } from './settingStore';

/** The fleet's value of a setting as read back: null when unreadable, described for a refusal line either way. */
export interface FleetSetting<T> {
  value: T | null;
  /** The record's text as stored: what a compare-and-set names (SettingStore.replaceSetting). */
  raw: string;
  /** For a refusal line: the value as `describe` put it, or the unreadable record quoted. */
  described: string;
  /** `<node> at <ISO time>`: who recorded it, on the database clock. */
  recordedBy: string;
}

/**
 * Records `ours` (as JSON) under `name` unless the fleet has a value, then reads the fleet's back: the one check
 * every fleet-wide setting shares (the region, the snowflake layout).
 */
export async function pinShared<T extends object>(options: {
  store: SettingStore;
  name: string;
  ours: T;
  nodeId: string;
  isValid: (value: Partial<T>) => boolean;
  describe: (value: T) => string;
}): Promise<FleetSetting<T>> {
  const { store, name, ours, nodeId, isValid, describe } = options;
  const pinned = await store.pinSetting(name, JSON.stringify(ours), nodeId);
  const value = parseRecord(pinned.value, isValid);
  return {
    value,
    raw: pinned.value,
    described: value === null ? `an unreadable record (${JSON.stringify(pinned.value)})` : describe(value),
    recordedBy: `${pinned.setBy} at ${new Date(pinned.setAt).toISOString()}`,
  };
}

function parseRecord<T>(text: string, isValid: (value: Partial<T>) => boolean): T | null {
  try {
    const value = JSON.parse(text) as Partial<T>;
    if (value !== null && typeof value === 'object' && isValid(value)) return value as T;
  } catch {
    // falls through: named as unreadable
  }
  return null;
}

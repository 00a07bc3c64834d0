import { LeafError } from '../errors';
import type { TagStore } from '../segment/tagStore';
import type { MysqlTarget } from './mysql/url';

/** Which database to open: the server's `config.store`, or `leaf-ts/embedded`'s own options. */
export interface StoreTarget {
  /** null selects SQLite at `sqliteFile`. */
  mysql: MysqlTarget | null;
  sqliteFile: string;
  migrationsDir: string;
}

export const DEMO_TAG = { bizTag: 'demo', step: 1000, description: 'Demo tag, created on first start' } as const;

/** A new SQLite database gets one demo tag, so the app is useful at once. */
export async function seedDemoTag(tags: Pick<TagStore, 'createTag'>): Promise<void> {
  // Several processes may create the file together (cluster start): one of them seeds the demo tag.
  await tags.createTag(DEMO_TAG).catch((error: unknown) => {
    if (!(error instanceof LeafError && error.code === 'tag_exists')) throw error;
  });
}

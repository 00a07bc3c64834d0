import path from 'node:path';
import { z } from 'zod';
import { LeafError } from '../errors';
import type { Logger } from '../log';
import { MIN_OPAQUE_KEY_BYTES, opaqueKeyBytes, opaqueKeyFromText } from '../opaque/key';
import { OpaqueKeyRing } from '../opaque/keyRing';
import type { StoreTarget } from '../store/target';
import { DATABASE_URL_FORMS, serverUrlProblem, storeUrlTarget } from '../store/target';

/** `createLeaf`'s options. */
export interface EmbeddedOptions {
  /** Any form DATABASE_URL takes: mysql://…, postgres://…, file:path, sqlite:path, or a plain SQLite path. */
  databaseUrl: string;
  /** Where the per-dialect migrations live. Default: the `drizzle/` folder shipped with the package. */
  migrationsDir?: string;
  /** How long a call that finds both segments used up waits for the next one (ms). Default 1,000. */
  loadWaitMs?: number;
  /** How often the tag list is re-read (ms): new tags appear, deleted ones go. Default 60,000 (Leaf's). */
  refreshIntervalMs?: number;
  /** On close, give back the unused top of each tag's latest claim, so a restart skips ~no IDs. Default true. */
  giveBack?: boolean;
  /** Told of segment loads and faults (never per ID). Default: silent. */
  logger?: Logger;
  /**
   * How often changes of ordering are read (ms): a tag made strict is dropped here and refused within this, and no
   * change completes before this process acknowledged it (docs/design.md#ordered-tags). Default 1,000.
   */
  orderPollMs?: number;
  /** How the console names this process among those a change waits for. Default `embedded:<host>:<pid>`. */
  name?: string;
  /**
   * The database's region, as LEAF_REGION and LEAF_REGIONS are to the nodes on it (docs/operations.md#regions): IDs
   * are then the positions' n × regions + region. Default one region; a database recorded otherwise is refused.
   */
  region?: { region: number; regions: number };
  /**
   * The fleet's LEAF_OPAQUE_KEY (at least 32 bytes): opaque tags' IDs are permuted here as the nodes do. Without it an
   * opaque tag is refused (`opaque_key_missing`), never served unpermuted; another key than the fleet's is refused.
   */
  opaqueKey?: string;
  /**
   * Keys retired by a rotation (docs/operations.md#rotating-the-opaque-key): the tags created under them keep their
   * permutation. New tags take `opaqueKey`.
   */
  opaqueRetiredKeys?: string[];
}

export interface EmbeddedSettings {
  store: StoreTarget;
  loadWaitMs: number;
  refreshIntervalMs: number;
  giveBack: boolean;
  orderPollMs: number;
  name: string | undefined;
  region: { region: number; regions: number };
  opaqueKeys: OpaqueKeyRing | null;
}

const OPTIONS = z.object({
  databaseUrl: z
    .string({
      message: `databaseUrl must be ${DATABASE_URL_FORMS.replace(' or ', ', ')}, sqlite:path or a SQLite file path`,
    })
    .min(1, { message: 'databaseUrl must not be empty' })
    .superRefine((url, ctx) => {
      const problem = serverUrlProblem(url);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `databaseUrl: ${problem}` });
    }),
  migrationsDir: z.string().min(1).optional(),
  loadWaitMs: z
    .number()
    .int()
    .min(1)
    .max(60_000, { message: 'loadWaitMs must be an integer from 1 to 60000 (ms)' })
    .optional(),
  refreshIntervalMs: z
    .number()
    .int()
    .min(1_000)
    .max(3_600_000, { message: 'refreshIntervalMs must be an integer from 1000 to 3600000 (ms)' })
    .optional(),
  giveBack: z.boolean({ message: 'giveBack must be true or false' }).optional(),
  orderPollMs: z
    .number()
    .int()
    .min(100)
    .max(60_000, { message: 'orderPollMs must be an integer from 100 to 60000 (ms)' })
    .optional(),
  name: z.string().min(1).max(255, { message: 'name must be 1 to 255 characters' }).optional(),
  region: z
    .object({ region: z.number().int().min(0), regions: z.number().int().min(1).max(1024) })
    .refine((r) => r.region < r.regions, { message: 'region.region must be below region.regions' })
    .optional(),
  opaqueKey: secret('opaqueKey').optional(),
  opaqueRetiredKeys: z
    .array(secret('opaqueRetiredKeys[]'), { message: 'opaqueRetiredKeys must be an array of strings' })
    .optional(),
});

function secret(name: string) {
  return z.string({ message: `${name} must be a string` }).refine((v) => opaqueKeyBytes(v) >= MIN_OPAQUE_KEY_BYTES, {
    message: `${name} must be at least ${MIN_OPAQUE_KEY_BYTES} bytes of secret`,
  });
}

/** The current key and the retired ones; retired keys alone are refused (new tags need a current one). */
function keyRing(current: string | undefined, retired: string[] | undefined): OpaqueKeyRing | null {
  if (current === undefined) {
    if (retired !== undefined && retired.length > 0) {
      throw new LeafError('invalid_config', 'opaqueRetiredKeys needs opaqueKey: new opaque tags take the current key');
    }
    return null;
  }
  try {
    return new OpaqueKeyRing(opaqueKeyFromText(current), (retired ?? []).map(opaqueKeyFromText));
  } catch (error) {
    throw new LeafError('invalid_config', `opaqueRetiredKeys: ${(error as Error).message}`);
  }
}

/** The migrations beside this module: lib/embedded/ sits two levels below the checkout's drizzle/, dist/embedded/ below the package's. */
function shippedMigrations(): string {
  return path.resolve(__dirname, '..', '..', 'drizzle');
}

/** Checks the options once; a bad one throws LeafError('invalid_config') naming it. Reads no environment. */
export function parseEmbeddedOptions(options: EmbeddedOptions): EmbeddedSettings {
  const parsed = OPTIONS.safeParse(options);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) =>
      issue.message.includes(String(issue.path[0])) ? issue.message : `${String(issue.path[0])}: ${issue.message}`,
    );
    throw new LeafError('invalid_config', lines.join('\n'));
  }
  const { databaseUrl, migrationsDir, loadWaitMs = 1_000, refreshIntervalMs = 60_000, giveBack = true } = parsed.data;
  return {
    store: { ...storeUrlTarget(databaseUrl), migrationsDir: path.resolve(migrationsDir ?? shippedMigrations()) },
    loadWaitMs,
    refreshIntervalMs,
    giveBack,
    orderPollMs: parsed.data.orderPollMs ?? 1_000,
    name: parsed.data.name,
    region: parsed.data.region ?? { region: 0, regions: 1 },
    opaqueKeys: keyRing(parsed.data.opaqueKey, parsed.data.opaqueRetiredKeys),
  };
}

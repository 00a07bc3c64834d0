import { z } from 'zod';
import { BIZ_TAG_MAX_LENGTH, BIZ_TAG_PATTERN, MAX_COUNT, readableLimit } from '../bizTag';
import { MAX_ID, parseId } from '../segment/id';
import { SEMANTICS } from '../segment/semantics';
import { ORDERINGS } from '../ordered/orderStore';
import { MAX_STEP } from '../segment/step';
import { ENCODINGS } from '../opaque/encoding';

/** One schema per form, shared by the console (instant feedback) and the routes (the authority); pure. */
export { BIZ_TAG_MAX_LENGTH, BIZ_TAG_PATTERN, MAX_COUNT, MAX_STEP, readableLimit };

export const DESCRIPTION_MAX_LENGTH = 256;

/** The fields every tag-like form shares (segment tags here, formatted tags in formatSchema.ts). */
export const bizTag = z
  .string({ error: 'Required.' })
  .min(1, 'Required.')
  .max(BIZ_TAG_MAX_LENGTH, `At most ${BIZ_TAG_MAX_LENGTH} characters.`)
  .regex(BIZ_TAG_PATTERN, 'Only letters, digits and _ - . : are allowed.');

const STEP_RANGE = `A whole number from 1 to ${readableLimit(MAX_STEP)}.`;
export const step = z
  .number({ error: STEP_RANGE })
  .int(STEP_RANGE)
  .min(1, 'At least 1.')
  .max(MAX_STEP, `At most ${readableLimit(MAX_STEP)}.`);

/** A decimal string (or a number while exact) from 1 to 2^63−1: a JSON number past 2^53 is already rounded. */
const MAX_ID_RANGE = `A whole number from 1 to ${MAX_ID}.`;
const maxId = z.union([z.string(), z.number()], { error: MAX_ID_RANGE }).transform((v, ctx) => {
  if (typeof v === 'number' && !Number.isSafeInteger(v)) {
    ctx.addIssue({
      code: 'custom',
      message: `${MAX_ID_RANGE} Above 2^53 send it as a decimal string: a JSON number that large is rounded.`,
    });
    return z.NEVER;
  }
  const text = typeof v === 'number' ? String(v) : v.trim();
  const id = /^[0-9]{1,19}$/.test(text) ? parseId(text) : undefined;
  if (id === undefined || id < 1) {
    ctx.addIssue({ code: 'custom', message: MAX_ID_RANGE });
    return z.NEVER;
  }
  return id;
});

/**
 * Control characters (C0, DEL, C1: NUL, a terminal's escape) and bidi overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069: text shown in another order than it is stored) — refused in any text people read later.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const UNSAFE_TEXT_MESSAGE = 'Control characters and bidi overrides (U+202A–U+202E, U+2066–U+2069) are not allowed.';

export const description = z
  .string({ error: `Text, at most ${DESCRIPTION_MAX_LENGTH} characters.` })
  .max(DESCRIPTION_MAX_LENGTH, `At most ${DESCRIPTION_MAX_LENGTH} characters.`)
  .refine((v) => !UNSAFE_TEXT.test(v), UNSAFE_TEXT_MESSAGE)
  .transform((v) => (v.trim() === '' ? null : v))
  .nullable();

/** `strict`: IDs increase across the whole fleet (lib/ordered); `none`: segment order, the default. */
const ordering = z.enum(ORDERINGS, { error: 'One of "strict" or "none".' });

/** `opaque` (63 bits) or `opaque-js-safe` (53): IDs permuted under LEAF_OPAQUE_KEY (lib/opaque); `plain`, the default. */
const encoding = z.enum(ENCODINGS, { error: 'One of "plain", "opaque" or "opaque-js-safe".' });

export const createTagSchema = z.strictObject({
  bizTag,
  step,
  maxId: maxId.optional(),
  description: description.optional(),
  ordering: ordering.optional(),
  encoding: encoding.optional(),
});

/** Claim semantics (lib/segment/semantics.ts): `leaf` as Leaf's Java server, `leaf-ts` this project's own. */
const semantics = z.enum(SEMANTICS, { error: 'One of "leaf" or "leaf-ts".' });

export const updateTagSchema = z
  .strictObject({
    step: step.optional(),
    description: description.optional(),
    maxId: maxId.optional(),
    /** null: the tag follows the fleet default again. */
    semantics: semantics.nullable().optional(),
    ordering: ordering.optional(),
  })
  .refine(
    (v) =>
      v.step !== undefined ||
      v.description !== undefined ||
      v.maxId !== undefined ||
      v.semantics !== undefined ||
      v.ordering !== undefined,
    {
      message: 'Nothing to change: give step, description, maxId, semantics or ordering.',
    },
  );

/** PUT /api/admin/semantics: the fleet default. */
export const fleetSemanticsSchema = z.strictObject({ semantics });
export type FleetSemanticsInput = z.output<typeof fleetSemanticsSchema>;

export const deleteTagSchema = z.strictObject({ confirm: z.string({ error: 'Type the tag name to confirm.' }) });

export const loginSchema = z.strictObject({ token: z.string({ error: 'Required.' }).min(1, 'Required.').max(512) });

/** What the service receives: the schema's output (max_id an exact Id, an empty description null). */
export type CreateTagInput = z.output<typeof createTagSchema>;
export type UpdateTagInput = z.output<typeof updateTagSchema>;
/** What a client sends: the schema's input (max_id as a decimal string or a number). */
export type CreateTagRequest = z.input<typeof createTagSchema>;
export type UpdateTagRequest = z.input<typeof updateTagSchema>;

/** Field → first message, for showing beside each form field. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  // A Map, then own properties: a field named "__proto__" is named back, not swallowed by the prototype setter.
  const fields = new Map<string, string>();
  const note = (key: string, message: string) => {
    if (!fields.has(key)) fields.set(key, message);
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) note(k, 'Unknown field.');
      continue;
    }
    note(issue.path.length > 0 ? String(issue.path[0]) : '_form', issue.message);
  }
  return Object.fromEntries(fields);
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

/** A decimal query parameter: whole, positive, exact. */
const positiveParam = (what: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, `${what} must be a whole number of at least 1.`)
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n), `${what} is too large.`);

/** The query of GET /api/admin/audit: `?before=<id>&limit=N&tag=<bizTag>`, every one optional. */
export const auditQuerySchema = z.strictObject({
  before: positiveParam('before').optional(),
  limit: positiveParam('limit')
    .refine((n) => n <= AUDIT_PAGE_MAX, `limit is at most ${AUDIT_PAGE_MAX}.`)
    .optional()
    .transform((n) => n ?? AUDIT_PAGE_DEFAULT),
  tag: bizTag.optional(),
});

export type AuditQueryInput = z.output<typeof auditQuerySchema>;

export const TOKEN_NAME_MAX_LENGTH = 128;
/** A token may name this many tags; more is a sign the operator wanted LEAF_ID_TOKEN. */
export const TOKEN_MAX_TAGS = 100;

/** A per-tag access token (lib/auth/scopedTokens.ts): a name for people, and the tags it may draw from. */
export const createTokenSchema = z.strictObject({
  name: z
    .string({ error: 'Required.' })
    .trim()
    .min(1, 'Required.')
    .max(TOKEN_NAME_MAX_LENGTH, `At most ${TOKEN_NAME_MAX_LENGTH} characters.`)
    .refine((v) => !UNSAFE_TEXT.test(v), UNSAFE_TEXT_MESSAGE),
  tags: z
    .array(bizTag, { error: 'A list of tags.' })
    .min(1, 'Pick at least one tag.')
    .max(TOKEN_MAX_TAGS, `At most ${TOKEN_MAX_TAGS} tags.`)
    .transform((tags) => [...new Set(tags)].sort()),
});

export type CreateTokenInput = z.output<typeof createTokenSchema>;
export type CreateTokenRequest = z.input<typeof createTokenSchema>;

/** A token's public id as the routes take it (lib/auth/scopedTokens.ts: 9 random bytes, base64url). */
export const TOKEN_ID_PATTERN = /^[A-Za-z0-9_-]{12}$/;

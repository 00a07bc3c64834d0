import { z } from 'zod';
import { MAX_PATTERN_LENGTH, parsePattern } from '../format/pattern';
import { RESET_PERIODS, canonicalTimeZone } from '../format/period';
import { checkFormat } from '../format/rules';
import { bizTag, description, step } from './schema';

/** The formatted-tag forms' schemas, shared by the console and the routes; pure, for client components. */
const pattern = z
  .string({ error: 'Required.' })
  .max(MAX_PATTERN_LENGTH, `At most ${MAX_PATTERN_LENGTH} characters.`)
  .superRefine((v, ctx) => {
    const parsed = parsePattern(v);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
  });

const resetPeriod = z.enum(RESET_PERIODS, { error: 'One of never, daily, monthly or yearly.' });

/** An IANA zone Intl knows, stored as Intl spells it (`asia/shanghai` → `Asia/Shanghai`). */
const timeZone = z.string({ error: 'An IANA time zone, e.g. Asia/Shanghai.' }).transform((v, ctx) => {
  const zone = canonicalTimeZone(v.trim());
  if (zone === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `"${v.slice(0, 64)}" is not a time zone this runtime knows (IANA names, e.g. Asia/Shanghai, UTC).`,
    });
    return z.NEVER;
  }
  return zone;
});

export const createFormatSchema = z
  .strictObject({ bizTag, pattern, resetPeriod, timeZone, step, description: description.optional() })
  .superRefine((v, ctx) => {
    const checked = checkFormat(v.pattern, v.resetPeriod);
    if (!checked.ok && parsePattern(v.pattern).ok)
      ctx.addIssue({ code: 'custom', path: ['pattern'], message: checked.error });
  });

/** An edit: the reset period never changes; the pattern only by a wider {seq:N} (the store checks against the row). */
export const updateFormatSchema = z
  .strictObject({
    pattern: pattern.optional(),
    timeZone: timeZone.optional(),
    step: step.optional(),
    description: description.optional(),
  })
  .refine(
    (v) => v.pattern !== undefined || v.timeZone !== undefined || v.step !== undefined || v.description !== undefined,
    {
      message: 'Nothing to change: give pattern, timeZone, step or description.',
    },
  );

export type CreateFormatInput = z.output<typeof createFormatSchema>;
export type CreateFormatRequest = z.input<typeof createFormatSchema>;
export type UpdateFormatInput = z.output<typeof updateFormatSchema>;
export type UpdateFormatRequest = z.input<typeof updateFormatSchema>;

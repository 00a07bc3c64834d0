import type { z } from 'zod';
import { isApiError } from './api';
import { fieldErrors } from './tagSchema';

export type FieldErrors = Partial<Record<string, string>>;

/** Client-side check with the server's own schema: the first message per field, keyed by field name. */
export function checkFields(schema: z.ZodType, input: unknown): FieldErrors {
  const result = schema.safeParse(input);
  return result.success ? {} : fieldErrors(result.error);
}

/** Which field a refusal of the server is about, where it names none itself. */
const CODE_FIELD: Record<string, string> = {
  tag_exists: 'bizTag',
  invalid_tag: 'bizTag',
  max_id_below_tombstone: 'maxId',
  max_id_lowered: 'maxId',
  confirmation_mismatch: 'confirm',
};

/** The server's refusal as field messages (its `fields`, or the field its code is about), plus a form message. */
export function serverErrors(error: unknown): { fields: FieldErrors; form: string | null } {
  if (!isApiError(error)) return { fields: {}, form: error === null || error === undefined ? null : 'Something went wrong.' };
  const fields: FieldErrors = { ...error.fields };
  const named = Object.keys(fields).length > 0;
  const field = CODE_FIELD[error.code];
  if (!named && field !== undefined) fields[field] = error.message;
  // Above the buttons: a message about the whole form (`_form`), a refusal about no field, or the server's
  // explanation of a refusal (409) whose field message is short ("Must be at least 1000.").
  let form: string | null = fields._form ?? null;
  if (form === null && Object.keys(fields).length === 0) form = error.message;
  if (form === null && named && error.status === 409) form = error.message;
  return { fields, form };
}

/** A number field's text as a JSON number when it is a whole number, else as typed (the schema says what is wrong). */
export function toInteger(text: string): number | string {
  const t = text.trim();
  return /^-?\d+$/.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : t;
}

import type { z } from 'zod';
import { isApiError } from './api';
import { fieldErrors } from './tagSchema';

export type FieldErrors = Partial<Record<string, string>>;

/** A form's values before the check: each field as the schema's input, or as typed text the schema may refuse. */
export type Draft<T> = { [K in keyof T]: T[K] | string };

/** A checked draft: the request to send, or the first message per field, keyed by field name. */
export type Checked<T> = { ok: true; request: T; errors: FieldErrors } | { ok: false; errors: FieldErrors };

/**
 * Client-side check with the server's own schema. The draft itself is what gets sent (the server parses it
 * again, as the authority); passing the check is what makes it the schema's input type.
 */
export function checkFields<S extends z.ZodType>(schema: S, draft: Draft<z.input<S>>): Checked<z.input<S>> {
  const result = schema.safeParse(draft);
  return result.success
    ? { ok: true, request: draft as z.input<S>, errors: {} }
    : { ok: false, errors: fieldErrors(result.error) };
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
  if (!isApiError(error))
    return { fields: {}, form: error === null || error === undefined ? null : 'Something went wrong.' };
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

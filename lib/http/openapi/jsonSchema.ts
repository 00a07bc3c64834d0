/** JSON Schema (2020-12, OpenAPI 3.1's) written against the answer types: `shape<T>()` must name exactly T's fields. */
export type JsonSchema = { [keyword: string]: unknown };

export const str: JsonSchema = { type: 'string' };
export const int: JsonSchema = { type: 'integer' };
export const num: JsonSchema = { type: 'number' };
export const bool: JsonSchema = { type: 'boolean' };
export const isoTime: JsonSchema = { type: 'string', format: 'date-time' };
/** An ID as a decimal string: exact up to 2^63−1, past what a JSON number holds. */
export const decimalId: JsonSchema = { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$' };
/** A segment ID as `?format=` writes it: decimal, base62, or Crockford base32 with its check symbol. */
export const ID_TEXT_PATTERN =
  '^(0|[1-9][0-9]{0,18}|[0-9A-Za-z]{1,11}|[0-9A-HJKMNP-TV-Z]{1,13}[0-9A-HJKMNP-TV-Z*~$=U])$';
export const idText: JsonSchema = { type: 'string', pattern: ID_TEXT_PATTERN };

export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
export const mapOf = (values: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: values });
export const oneOfValues = (values: readonly (string | number | boolean)[]): JsonSchema => ({ enum: [...values] });
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** Exactly T's properties, none other; `optional` lists those T marks optional (the type checks both). */
export function shape<T>() {
  return <const P extends { [K in keyof Required<T>]: JsonSchema }>(
    properties: P & Record<Exclude<keyof P, keyof T>, never>,
    optional: ReadonlyArray<OptionalKeys<T>> = [],
  ): JsonSchema => ({
    type: 'object',
    properties,
    required: Object.keys(properties).filter((key) => !(optional as readonly string[]).includes(key)),
    additionalProperties: false,
  });
}

/** An object schema for an answer built inline (no named TypeScript type): every property required. */
export function object(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((key) => !optional.includes(key)),
    additionalProperties: false,
  };
}

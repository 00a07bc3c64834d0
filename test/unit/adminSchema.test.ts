import { describe, expect, it } from 'vitest';
import { createTagSchema, deleteTagSchema, fieldErrors, updateTagSchema } from '@/lib/admin/schema';

function errorsOf(schema: typeof createTagSchema | typeof updateTagSchema, value: unknown): Record<string, string> {
  const r = schema.safeParse(value);
  if (r.success) throw new Error(`expected ${JSON.stringify(value)} to fail`);
  return fieldErrors(r.error);
}

describe('createTagSchema', () => {
  it.each([
    [
      { bizTag: 'a', step: 1 },
      { bizTag: 'a', step: 1 },
    ],
    [
      { bizTag: 'A-z_0.9:x', step: 1_000_000 },
      { bizTag: 'A-z_0.9:x', step: 1_000_000 },
    ],
    [
      { bizTag: 'x'.repeat(128), step: 5, maxId: '42' },
      { bizTag: 'x'.repeat(128), step: 5, maxId: 42 },
    ],
    [
      { bizTag: 't', step: 5, maxId: 9007199254740991 },
      { bizTag: 't', step: 5, maxId: 9007199254740991 },
    ],
    [
      { bizTag: 't', step: 5, maxId: ' 7 ' },
      { bizTag: 't', step: 5, maxId: 7 },
    ],
    // Beyond 2^53 as a decimal string: an exact bigint, up to 2^63−1 (Leaf's signed BIGINT).
    [
      { bizTag: 't', step: 5, maxId: '9007199254740992' },
      { bizTag: 't', step: 5, maxId: 9007199254740992n },
    ],
    [
      { bizTag: 't', step: 5, maxId: '100000000000000000' },
      { bizTag: 't', step: 5, maxId: 100000000000000000n },
    ],
    [
      { bizTag: 't', step: 5, maxId: '9223372036854775807' },
      { bizTag: 't', step: 5, maxId: 9223372036854775807n },
    ],
    [
      { bizTag: 't', step: 5, description: '  ' },
      { bizTag: 't', step: 5, description: null },
    ],
    [
      { bizTag: 't', step: 5, description: 'd'.repeat(256) },
      { bizTag: 't', step: 5, description: 'd'.repeat(256) },
    ],
  ])('accepts %j', (input, parsed) => {
    expect(createTagSchema.parse(input)).toEqual(parsed);
  });

  it.each([
    [{ step: 5 }, 'bizTag'],
    [{ bizTag: '', step: 5 }, 'bizTag'],
    [{ bizTag: 'x'.repeat(129), step: 5 }, 'bizTag'],
    [{ bizTag: 'has space', step: 5 }, 'bizTag'],
    [{ bizTag: 'emoji🍁', step: 5 }, 'bizTag'],
    [{ bizTag: "o'; DROP TABLE leaf_alloc;--", step: 5 }, 'bizTag'],
    [{ bizTag: 'a/b', step: 5 }, 'bizTag'],
    [{ bizTag: 't' }, 'step'],
    [{ bizTag: 't', step: 0 }, 'step'],
    [{ bizTag: 't', step: -1 }, 'step'],
    [{ bizTag: 't', step: 1.5 }, 'step'],
    [{ bizTag: 't', step: 1_000_001 }, 'step'],
    [{ bizTag: 't', step: '5' }, 'step'],
    [{ bizTag: 't', step: Number.NaN }, 'step'],
    [{ bizTag: 't', step: 5, maxId: 0 }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: '0' }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: '-1' }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: '1e3' }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: '0x10' }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: 1.5 }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: '9223372036854775808' }, 'maxId'], // 2^63
    [{ bizTag: 't', step: 5, maxId: '18446744073709551615' }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: '99999999999999999999' }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: 9007199254740992 }, 'maxId'], // a JSON number past 2^53: already rounded
    [{ bizTag: 't', step: 5, maxId: 1e20 }, 'maxId'],
    [{ bizTag: 't', step: 5, maxId: true }, 'maxId'],
    [{ bizTag: 't', step: 5, description: 'd'.repeat(257) }, 'description'],
    [{ bizTag: 't', step: 5, description: 5 }, 'description'],
    [{ bizTag: 't', step: 5, admin: true }, 'admin'],
  ])('refuses %j with a message on %s', (input, field) => {
    const fields = errorsOf(createTagSchema, input);
    expect(fields[field]).toEqual(expect.any(String));
    expect(fields[field]!.length).toBeGreaterThan(3);
  });
});

describe('updateTagSchema', () => {
  it('accepts any one change', () => {
    expect(updateTagSchema.parse({ step: 10 })).toEqual({ step: 10 });
    expect(updateTagSchema.parse({ description: null })).toEqual({ description: null });
    expect(updateTagSchema.parse({ maxId: '100' })).toEqual({ maxId: 100 });
  });

  it('refuses an empty change and unknown fields', () => {
    expect(errorsOf(updateTagSchema, {})._form).toMatch(/Nothing to change/);
    expect(errorsOf(updateTagSchema, { bizTag: 'rename' }).bizTag).toBe('Unknown field.');
    expect(errorsOf(updateTagSchema, { step: 0 }).step).toEqual(expect.any(String));
  });
});

describe('deleteTagSchema', () => {
  it('needs the confirmation string', () => {
    expect(deleteTagSchema.safeParse({}).success).toBe(false);
    expect(deleteTagSchema.parse({ confirm: 'order' })).toEqual({ confirm: 'order' });
  });
});

describe('fieldErrors', () => {
  it('names a field called __proto__ instead of losing it to the prototype', () => {
    const fields = errorsOf(createTagSchema, JSON.parse('{"bizTag":"a","step":1,"__proto__":{"x":1}}'));
    expect(Object.keys(fields)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(fields))).toEqual(JSON.parse('{"__proto__":"Unknown field."}'));
  });
});

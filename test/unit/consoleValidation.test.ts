import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CreateTagRequest, UpdateTagRequest } from '@/components/console/api';
import { createTagSchema, updateTagSchema } from '@/components/console/tagSchema';
import { checkFields, toInteger } from '@/components/console/validation';
import type { CreateTagInput, UpdateTagInput } from '@/lib/admin/schema';

describe('console form types come from the shared schemas', () => {
  it('a request is the schema input; the service receives its output', () => {
    expectTypeOf<CreateTagRequest['maxId']>().toEqualTypeOf<string | number | undefined>();
    expectTypeOf<CreateTagInput['maxId']>().toEqualTypeOf<number | bigint | undefined>();
    expectTypeOf<UpdateTagRequest['description']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<UpdateTagInput['description']>().toEqualTypeOf<string | null | undefined>();
  });

  it('a draft that passes is sent as typed; one that fails gives field messages', () => {
    const ok = checkFields(createTagSchema, { bizTag: 'order', step: toInteger('1000'), maxId: '42' });
    expect(ok).toEqual({ ok: true, request: { bizTag: 'order', step: 1000, maxId: '42' }, errors: {} });
    if (ok.ok) expectTypeOf(ok.request).toEqualTypeOf<CreateTagRequest>();

    const bad = checkFields(updateTagSchema, { step: toInteger('ten'), maxId: '0' });
    expect(bad.ok).toBe(false);
    expect(bad.errors).toMatchObject({ step: expect.any(String), maxId: expect.any(String) });
  });
});

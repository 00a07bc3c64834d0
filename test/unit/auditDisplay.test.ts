import { describe, expect, it } from 'vitest';
import { auditChanges } from '@/components/console/auditDisplay';
import type { AuditTagRow } from '@/lib/admin/views';

const row = (over: Partial<AuditTagRow> = {}): AuditTagRow => ({
  bizTag: 'orders',
  maxId: '1000',
  step: 100,
  description: 'Order numbers',
  updateTime: '2026-12-03T03:00:00.000Z',
  ...over,
});

describe('audit list: the change column', () => {
  it('an edit or raise lists each changed field, before → after', () => {
    expect(auditChanges({ action: 'tag.edit', before: row(), after: row({ step: 750, updateTime: 'later' }) })).toEqual(
      ['step 100 → 750'],
    );
    expect(auditChanges({ action: 'tag.edit', before: row(), after: row({ description: null }) })).toEqual([
      'description “Order numbers” → (none)',
    ]);
    expect(auditChanges({ action: 'tag.raise', before: row(), after: row({ maxId: '9007199254740991' }) })).toEqual([
      'max_id 1,000 → 9,007,199,254,740,991',
    ]);
    expect(auditChanges({ action: 'tag.edit', before: row(), after: row({ updateTime: 'later' }) })).toEqual([
      'no change',
    ]);
  });

  it('a create lists the new row, a delete where it ended, logins nothing but a refusal', () => {
    expect(auditChanges({ action: 'tag.create', before: null, after: row({ description: null }) })).toEqual([
      'step 100',
      'max_id 1,000',
    ]);
    expect(auditChanges({ action: 'tag.delete', before: row(), after: null })).toEqual(['at max_id 1,000']);
    expect(auditChanges({ action: 'auth.login', before: null, after: null })).toEqual([]);
    expect(auditChanges({ action: 'auth.login_failed', before: null, after: null })).toEqual(['wrong token']);
  });

  it('a formatted tag: the new row on create, what changed on edit, the pattern on delete', () => {
    const format = {
      bizTag: 'ord',
      pattern: 'O{yyyyMMdd}{seq:4}',
      resetPeriod: 'daily' as const,
      timeZone: 'UTC',
      step: 100,
      description: null,
      createdAt: 1,
      updatedAt: 1,
    };
    expect(auditChanges({ action: 'format.create', before: null, after: format })).toEqual([
      'pattern O{yyyyMMdd}{seq:4}',
      'reset daily',
      'zone UTC',
      'step 100',
      'description (none)',
    ]);
    expect(
      auditChanges({
        action: 'format.edit',
        before: format,
        after: { ...format, pattern: 'O{yyyyMMdd}{seq:5}', timeZone: 'Asia/Shanghai', updatedAt: 2 },
      }),
    ).toEqual(['pattern O{yyyyMMdd}{seq:4} → O{yyyyMMdd}{seq:5}', 'zone UTC → Asia/Shanghai']);
    expect(auditChanges({ action: 'format.delete', before: format, after: null })).toEqual([
      'pattern O{yyyyMMdd}{seq:4} (its periods are kept)',
    ]);
  });
});

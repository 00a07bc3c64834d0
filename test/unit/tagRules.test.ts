/**
 * The tag rules both dialects (and the fakes) run: what a create, edit, raise, delete and semantics switch write,
 * and what they refuse. The stores' own tests prove each dialect runs them under its locks.
 */
import { describe, expect, it } from 'vitest';
import { LeafError } from '@/lib/errors';
import type { Semantics } from '@/lib/segment/semantics';
import {
  effectiveSemantics,
  existingTag,
  fleetSwitchAudit,
  planCreate,
  planDefaultSwitch,
  planEdit,
  planRaise,
  planTagSwitch,
  settingsFromRows,
  tagSwitchAudit,
} from '@/lib/store/tagRules';
import type { TagRow } from '@/lib/segment/tagStore';

const row = (maxId: number | bigint, bizTag = 't'): TagRow => ({
  bizTag,
  maxId,
  step: 10,
  description: null,
  updateTime: new Date(0),
});
const stamp = { actor: 'session:x', address: '127.0.0.1', nodeId: 'n1', at: 1_000 };

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof LeafError) return error.code;
    throw error;
  }
  return 'none';
}

describe('planCreate', () => {
  it.each([
    ['no tombstone, no maxId: 1, as Leaf', undefined, undefined, 1],
    ['no tombstone: the given maxId', 500, undefined, 500],
    ['a tombstone and no maxId: continues at it', undefined, 700, 700],
    ['a tombstone and a maxId above it: the maxId', 900, 700, 900],
    ['a tombstone and the same maxId', 700, 700, 700],
    ['above 2^53, exactly', undefined, 2n ** 60n, 2n ** 60n],
  ] as const)('%s', (_, maxId, tombstone, expected) => {
    expect(planCreate({ bizTag: 't', maxId }, tombstone)).toBe(expected);
  });

  it.each([
    [699, 700],
    [2n ** 60n - 1n, 2n ** 60n],
    [5, 2n ** 60n],
  ])('a maxId %s below the tombstone %s is refused (its old IDs would come again)', (maxId, tombstone) => {
    expect(refusal(() => planCreate({ bizTag: 't', maxId }, tombstone))).toBe('max_id_below_tombstone');
  });
});

describe('planEdit', () => {
  it('writes only the columns it names; a null description clears it', () => {
    expect(planEdit({})).toEqual({});
    expect(planEdit({ step: 5 })).toEqual({ step: 5 });
    expect(planEdit({ description: null })).toEqual({ description: null });
    expect(planEdit({ step: undefined, description: 'd' })).toEqual({ description: 'd' });
  });
});

describe('existingTag and planRaise', () => {
  it('a missing row is tag_not_found', () => {
    expect(refusal(() => existingTag('t', undefined))).toBe('tag_not_found');
    expect(existingTag('t', row(3)).maxId).toBe(3);
  });

  it.each([
    [10, 10, 'none'],
    [10, 11, 'none'],
    [10, 9, 'max_id_lowered'],
    [2n ** 60n, 2n ** 60n - 1n, 'max_id_lowered'],
    [2n ** 60n, 2n ** 60n + 1n, 'none'],
    [5, 2n ** 60n, 'none'],
  ] as const)('max_id %s raised to %s: %s', (current, requested, code) => {
    expect(refusal(() => planRaise(row(current), requested))).toBe(code);
    if (code === 'none') expect(planRaise(row(current), requested)).toBe(requested);
  });
});

describe('semantics', () => {
  it('a tag follows its own row, else the default, else leaf-ts', () => {
    expect(effectiveSemantics({ fleet: undefined, own: undefined })).toBe('leaf-ts');
    expect(effectiveSemantics({ fleet: 'leaf', own: undefined })).toBe('leaf');
    expect(effectiveSemantics({ fleet: 'leaf', own: 'leaf-ts' })).toBe('leaf-ts');
  });

  it('settings from rows: the * row is the default, unknown values are skipped', () => {
    expect(settingsFromRows([])).toEqual({ default: 'leaf-ts', tags: {} });
    expect(
      settingsFromRows([
        { bizTag: '*', semantics: 'leaf' },
        { bizTag: 'a', semantics: 'leaf-ts' },
        { bizTag: 'b', semantics: 'java' },
      ]),
    ).toEqual({ default: 'leaf', tags: { a: 'leaf-ts' } });
  });

  it.each<[Semantics | undefined, Semantics, Semantics, 0 | 1, boolean]>([
    [undefined, 'leaf-ts', 'leaf-ts', 0, false],
    [undefined, 'leaf', 'leaf-ts', 1, true],
    ['leaf', 'leaf-ts', 'leaf', 0, true],
    ['leaf', 'leaf', 'leaf', 0, false],
  ])('the default %s switched to %s: from %s, bump %s, changes %s', (fleet, to, before, bump, changes) => {
    expect(planDefaultSwitch(fleet, to)).toEqual({ before, after: to, bump, changes });
  });

  it.each<[Semantics | undefined, Semantics | undefined, Semantics | null, Semantics, Semantics, 0 | 1, boolean]>([
    // fleet, own, requested → before, after, bump, writesRow
    [undefined, undefined, 'leaf', 'leaf-ts', 'leaf', 1, true],
    [undefined, 'leaf', 'leaf', 'leaf', 'leaf', 0, false],
    [undefined, 'leaf', null, 'leaf', 'leaf-ts', 0, true],
    ['leaf', 'leaf-ts', null, 'leaf-ts', 'leaf', 1, true],
    ['leaf', undefined, 'leaf-ts', 'leaf', 'leaf-ts', 0, true],
    // Removing a row that is not there still counts as a write (and an audit entry), as the stores always did.
    ['leaf', undefined, null, 'leaf', 'leaf', 0, true],
  ])(
    'fleet %s, own %s, set to %s: %s → %s, bump %s, writes its row %s',
    (fleet, own, to, before, after, bump, writesRow) => {
      expect(planTagSwitch({ fleet, own }, to)).toEqual({ before, after, bump, writesRow });
    },
  );

  it('the audit rows of a switch carry the semantics before and after, and the bump', () => {
    const fleet = fleetSwitchAudit(stamp, { before: 'leaf-ts', after: 'leaf', bump: 1 }, 3);
    expect(fleet).toMatchObject({ action: 'fleet.semantics', bizTag: null });
    expect(JSON.parse(fleet.before as string)).toEqual({ semantics: 'leaf-ts' });
    expect(JSON.parse(fleet.after as string)).toEqual({ semantics: 'leaf', bumped: 3 });
    const tag = tagSwitchAudit(
      stamp,
      { before: 'leaf-ts', after: 'leaf', bump: 1 },
      row(2n ** 60n),
      row(2n ** 60n + 1n),
      1,
    );
    expect(tag).toMatchObject({ action: 'tag.semantics', bizTag: 't' });
    expect(JSON.parse(tag.before as string)).toMatchObject({ maxId: String(2n ** 60n), semantics: 'leaf-ts' });
    expect(JSON.parse(tag.after as string)).toMatchObject({
      maxId: String(2n ** 60n + 1n),
      semantics: 'leaf',
      bumped: 1,
    });
  });
});

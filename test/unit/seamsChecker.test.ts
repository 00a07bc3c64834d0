/**
 * The seams run's one checker (tools/chaos/seams/checker.ts) against hand-made histories: each kind of violation it
 * looks for is found when planted — a duplicate, a position answered as an ID, an ID out of order inside a window a
 * change to strict completed, a formatted ID off its pattern — and nothing is found in the same history without it,
 * nor for an out-of-order answer outside every window (before the change completed, after the next one began).
 */
import { describe, expect, it } from 'vitest';
import { check, strictWindows } from '../../tools/chaos/seams/checker';
import type { Answer, History, Op } from '../../tools/chaos/seams/history';
import { opaqueKeyFromText } from '../../lib/opaque/key';

const answer = (a: Partial<Answer> & Pick<Answer, 'sentAt' | 'ids'>): Answer => ({
  region: 0,
  path: 'segment',
  tag: 's',
  receivedAt: a.sentAt + 1,
  via: 'n0',
  ...a,
});
const op = (kind: Op['kind'], startAt: number, endAt = startAt + 5): Op => ({
  kind,
  region: 0,
  target: 's',
  startAt,
  endAt,
  outcome: '200',
});

/** A clean history: region 0 (even IDs) and 1 (odd), a strict change at 100 seen complete at 200, back to none at 500. */
function history(extra: Answer[] = []): History {
  return {
    seed: 1,
    regions: 2,
    ops: [op('strict', 100), op('none', 500)],
    completions: [{ region: 0, tag: 's', strictSince: 'x', askedAt: 190, seenAt: 200 }],
    endedAt: 1_000,
    formats: { f: 'F-\\d{3}' },
    answers: [
      answer({ sentAt: 10, ids: ['2', '4'] }),
      answer({ sentAt: 20, ids: ['3'], region: 1 }),
      answer({ sentAt: 210, ids: ['10'] }),
      answer({ sentAt: 220, ids: ['12', '14'], path: 'client' }),
      answer({ sentAt: 230, ids: ['F-001'], path: 'formatted', tag: 'f' }),
      answer({ sentAt: 240, ids: ['9223372036854775807'], path: 'snowflake', tag: '' }),
      ...extra,
    ],
  };
}

describe('the seams checker', () => {
  it('passes a clean history and judges only requests sent inside the complete window', () => {
    expect(check(history())).toMatchObject({
      duplicates: 0,
      wrongRegion: 0,
      orderViolations: 0,
      badFormats: 0,
      orderJudged: 2,
    });
    expect(strictWindows(history()).get('0 s')).toEqual([[200, 500]]);
  });

  it('finds a duplicate across regions and paths, and a position answered as an ID', () => {
    const v = check(history([answer({ sentAt: 300, ids: ['14'], path: 'runs' }), answer({ sentAt: 310, ids: ['7'] })]));
    expect(v.duplicates).toBe(1);
    expect(v.wrongRegion).toBe(1);
    expect(v.findings.map((f) => f.kind)).toEqual(expect.arrayContaining(['duplicate', 'wrong-region']));
  });

  it('reads an opaque tag’s IDs back under the key: an ID answered unpermuted is found, a permuted one is not', () => {
    const secret = 'seams-checker-opaque-key-0123456789abcdef';
    const f = opaqueKeyFromText(secret).cipher(63, 'o');
    // Region 0 of 2: sequence numbers 2, 4 and 6, permuted; the region check applies to the sequence numbers.
    const ids = [2n, 4n, 6n].map((n) => String(f.encrypt(n)));
    const h = history([answer({ sentAt: 300, ids, tag: 'o', path: 'batch' })]);
    h.opaque = { key: secret, tags: ['o'] };
    expect(check(h)).toMatchObject({ unpermuted: 0, wrongRegion: 0, duplicates: 0 });
    // Control: the same tag answered a raw sequence number (an unpermuted 8) and a region-1 number (permuted 7).
    const bad = history([
      answer({ sentAt: 300, ids: ['8'], tag: 'o', path: 'leaf' }),
      answer({ sentAt: 310, ids: [String(f.encrypt(7n))], tag: 'o' }),
    ]);
    bad.opaque = { key: secret, tags: ['o'] };
    const v = check(bad);
    expect(v.unpermuted).toBe(1);
    expect(v.wrongRegion).toBeGreaterThanOrEqual(1); // the permuted 7 at least (the raw 8 reads back as any number)
    expect(v.findings.map((x) => x.kind)).toContain('unpermuted');
  });

  it('after a key rotation, reads each tag under the key its database records: an ID permuted under the other key is found', () => {
    const [oldSecret, newSecret] = [
      'seams-checker-old-key-0123456789abcdef-xx',
      'seams-checker-new-key-0123456789abcdef-xx',
    ];
    const [oldKey, newKey] = [opaqueKeyFromText(oldSecret), opaqueKeyFromText(newSecret)];
    const under = (k: typeof oldKey, tag: string, ns: bigint[]) => ns.map((n) => String(k.cipher(63, tag).encrypt(n)));
    const good = history([
      answer({ sentAt: 300, ids: under(oldKey, 'o1', [2n, 4n]), tag: 'o1', path: 'batch' }),
      answer({ sentAt: 310, ids: under(newKey, 'o3', [2n, 4n]), tag: 'o3', path: 'batch' }),
    ]);
    const opaque = { key: oldSecret, tags: ['o1', 'o3'], keys: [oldSecret, newSecret], keyIds: { '0 o3': newKey.id } };
    good.opaque = opaque;
    expect(check(good)).toMatchObject({ unpermuted: 0, wrongRegion: 0, duplicates: 0 });
    // Control: a node that permuted the new tag under its old key (or the old tag under its new one).
    const bad = history([
      answer({ sentAt: 300, ids: under(newKey, 'o1', [6n]), tag: 'o1' }),
      answer({ sentAt: 310, ids: under(oldKey, 'o3', [6n]), tag: 'o3' }),
    ]);
    bad.opaque = opaque;
    expect(check(bad).unpermuted).toBe(2);
  });

  it('finds an ID below one answered before its request was sent, inside the window only', () => {
    const late = answer({ sentAt: 250, ids: ['8'], path: 'embedded' });
    expect(check(history([late])).orderViolations).toBe(1);
    // The same answer before the change was seen complete, or after the tag went back to none: not judged.
    expect(check(history([{ ...late, sentAt: 150, receivedAt: 151 }])).orderViolations).toBe(0);
    expect(check(history([{ ...late, sentAt: 600, receivedAt: 601 }])).orderViolations).toBe(0);
  });

  it('ignores a view that may predate a change under way, and a region’s answers for another region', () => {
    const h = history([answer({ sentAt: 250, ids: ['8'] })]);
    h.completions[0]!.askedAt = 99; // asked before the change to strict had ended
    expect(check(h).orderViolations).toBe(0);
    const other = history([answer({ sentAt: 250, ids: ['9'], region: 1 })]);
    expect(check(other).orderViolations).toBe(0);
  });

  it('finds a formatted ID off its pattern and a snowflake ID twice', () => {
    const v = check(
      history([
        answer({ sentAt: 300, ids: ['F-1234'], path: 'formatted', tag: 'f' }),
        answer({ sentAt: 310, ids: ['9223372036854775807'], path: 'snowflake', tag: '' }),
      ]),
    );
    expect(v.badFormats).toBe(1);
    expect(v.duplicates).toBe(1);
  });
});

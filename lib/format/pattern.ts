/** A pattern: literal text, date parts in braces, exactly one `{seq:N}` (e.g. `ORD-{yyyyMMdd}-{seq:6}`); pure. */

/** Date parts, longest first (the parser tries them in this order). All fixed width. */
export const DATE_TOKENS = ['yyyy', 'yy', 'MM', 'dd', 'HH', 'mm', 'ss'] as const;
export type DateToken = (typeof DATE_TOKENS)[number];

/** 10^15 − 1 < 2^53: every sequence number is an exact JS number. */
export const MAX_SEQ_WIDTH = 15;
/** leaf_format.pattern is VARCHAR(256). */
export const MAX_PATTERN_LENGTH = 256;

export type PatternPart =
  { kind: 'literal'; text: string } | { kind: 'date'; token: DateToken } | { kind: 'seq'; width: number };

export interface FormatPattern {
  readonly source: string;
  readonly parts: readonly PatternPart[];
  /** The sequence's width in digits. */
  readonly width: number;
  /** Date parts the pattern shows. */
  readonly tokens: ReadonlySet<DateToken>;
}

export type PatternResult = { ok: true; pattern: FormatPattern } | { ok: false; error: string };

/** The pattern's date fields at one moment in the format's zone (lib/format/period.ts). */
export type DateFields = Readonly<Record<DateToken, string>>;

const SEQ = /^seq:([0-9]{1,2})$/;
/** Control characters would make an ID unprintable in logs and URLs. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function parsePattern(source: string): PatternResult {
  if (source.length === 0) return { ok: false, error: 'The pattern is empty.' };
  if (source.length > MAX_PATTERN_LENGTH)
    return { ok: false, error: `The pattern is longer than ${MAX_PATTERN_LENGTH} characters.` };
  if (hasControl(source)) return { ok: false, error: 'The pattern contains a control character.' };
  const parts: PatternPart[] = [];
  let literal = '';
  const flush = (): void => {
    if (literal !== '') parts.push({ kind: 'literal', text: literal });
    literal = '';
  };
  for (let i = 0; i < source.length;) {
    const c = source[i] as string;
    if (c === '}') {
      if (source[i + 1] !== '}')
        return { ok: false, error: `A lone "}" at position ${i + 1}: write "}}" for a literal brace.` };
      literal += '}';
      i += 2;
      continue;
    }
    if (c !== '{') {
      literal += c;
      i++;
      continue;
    }
    if (source[i + 1] === '{') {
      literal += '{';
      i += 2;
      continue;
    }
    const end = source.indexOf('}', i);
    if (end < 0)
      return { ok: false, error: `The "{" at position ${i + 1} is not closed: write "{{" for a literal brace.` };
    const inner = source.slice(i + 1, end);
    flush();
    const group = parseGroup(inner);
    if (typeof group === 'string') return { ok: false, error: group };
    parts.push(...group);
    i = end + 1;
  }
  flush();
  const seqs = parts.filter((p): p is Extract<PatternPart, { kind: 'seq' }> => p.kind === 'seq');
  if (seqs.length !== 1)
    return {
      ok: false,
      error:
        seqs.length === 0 ? 'The pattern needs a sequence, e.g. {seq:6}.' : 'The pattern may hold only one {seq:N}.',
    };
  const tokens = new Set(parts.flatMap((p) => (p.kind === 'date' ? [p.token] : [])));
  return { ok: true, pattern: { source, parts, width: (seqs[0] as { width: number }).width, tokens } };
}

/** One brace group's parts, or why it is refused. */
function parseGroup(inner: string): PatternPart[] | string {
  if (inner.startsWith('seq')) {
    const m = SEQ.exec(inner);
    const width = m === null ? NaN : Number(m[1]);
    if (!(width >= 1 && width <= MAX_SEQ_WIDTH))
      return `{${inner}}: the sequence is {seq:N} with a width N from 1 to ${MAX_SEQ_WIDTH}.`;
    return [{ kind: 'seq', width }];
  }
  if (inner === '') return 'An empty {} group: write "{{}}" for literal braces.';
  const parts: PatternPart[] = [];
  for (let i = 0; i < inner.length;) {
    const token = DATE_TOKENS.find((t) => inner.startsWith(t, i));
    if (token === undefined)
      return `{${inner}}: "${inner.slice(i)}" is not a date part (${DATE_TOKENS.join(', ')}) nor seq:N.`;
    parts.push({ kind: 'date', token });
    i += token.length;
  }
  return parts;
}

/** The largest sequence number `width` digits hold. */
export function sequenceCap(width: number): number {
  return 10 ** width - 1;
}

/** The pattern with its width left out: what may not change once a format exists (only the width may grow). */
export function patternShape(pattern: FormatPattern): string {
  return pattern.parts
    .map((p) =>
      p.kind === 'literal' ? p.text.replace(/[{}]/g, (b) => b + b) : p.kind === 'date' ? `{${p.token}}` : '{seq}',
    )
    .join('');
}

/** One period's IDs at one moment: the text around the sequence built once, one pad and one concatenation per ID. */
export function idRenderer(pattern: FormatPattern, fields: DateFields): (seq: number) => string {
  let head = '';
  let tail = '';
  let seen = false;
  for (const part of pattern.parts) {
    if (part.kind === 'seq') {
      seen = true;
      continue;
    }
    const text = part.kind === 'literal' ? part.text : fields[part.token];
    if (seen) tail += text;
    else head += text;
  }
  const { width } = pattern;
  const cap = sequenceCap(width);
  return (seq) => {
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > cap)
      throw new RangeError(`sequence ${seq} does not fit ${width} digits`);
    return head + String(seq).padStart(width, '0') + tail;
  };
}

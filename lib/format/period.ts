import type { DateFields, DateToken } from './pattern';

/** When a formatted tag's sequence starts again from 1: each period of the zone has its own counter. */
export const RESET_PERIODS = ['never', 'daily', 'monthly', 'yearly'] as const;
export type ResetPeriod = (typeof RESET_PERIODS)[number];

export function isResetPeriod(value: unknown): value is ResetPeriod {
  return typeof value === 'string' && (RESET_PERIODS as readonly string[]).includes(value);
}

/** The date parts a pattern must show so two periods never render alike (`yy` is not a year: `yyyy`). */
export const PERIOD_TOKENS: Readonly<Record<ResetPeriod, readonly DateToken[]>> = {
  never: [],
  yearly: ['yyyy'],
  monthly: ['yyyy', 'MM'],
  daily: ['yyyy', 'MM', 'dd'],
};

/** '' for never, else yyyy, yyyyMM or yyyyMMdd of the moment in the format's zone. */
export function periodKey(reset: ResetPeriod, fields: DateFields): string {
  switch (reset) {
    case 'never':
      return '';
    case 'yearly':
      return fields.yyyy;
    case 'monthly':
      return fields.yyyy + fields.MM;
    case 'daily':
      return fields.yyyy + fields.MM + fields.dd;
  }
}

/** One formatter per zone: building an Intl.DateTimeFormat costs far more than using one. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The date parts of `epochMs` in `timeZone` (an IANA name isTimeZone accepted). */
export function dateFields(timeZone: string, epochMs: number): DateFields {
  const out: Record<string, string> = {};
  for (const { type, value } of formatterOf(timeZone).formatToParts(epochMs)) out[type] = value;
  const yyyy = (out.year ?? '').padStart(4, '0');
  return {
    yyyy,
    yy: yyyy.slice(-2),
    MM: out.month ?? '',
    dd: out.day ?? '',
    HH: out.hour ?? '',
    mm: out.minute ?? '',
    ss: out.second ?? '',
  };
}

/** The zone's canonical IANA name when Intl knows it (`asia/shanghai` → `Asia/Shanghai`); undefined otherwise. */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length === 0 || name.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

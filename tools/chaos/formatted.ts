/**
 * What a formatted answer of the chaos format must be: every ID `CH-<yyyyMMdd>-<9 digits>`, one date per answer,
 * that date the format's zone's date at a moment between sending and receiving (worked out here with Intl, apart
 * from the server's own lib/format/period.ts), sequence numbers from 1 up.
 */
import { FORMAT, FORMATTED_ID } from './config';

/** yyyyMMdd of `ms` in `timeZone`; one Intl call per second asked about. */
export function zoneDate(timeZone: string): (ms: number) => string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const bySecond = new Map<number, string>();
  return (ms) => {
    const second = Math.floor(ms / 1000);
    let date = bySecond.get(second);
    if (date === undefined) {
      const p = Object.fromEntries(parts.formatToParts(ms).map((x) => [x.type, x.value]));
      date = `${p.year}${p.month}${p.day}`;
      if (bySecond.size >= 16) bySecond.clear();
      bySecond.set(second, date);
    }
    return date;
  };
}

const formatDate = zoneDate(FORMAT.timeZone);
/** The harness's clock (performance) and the nodes' (Date.now) may differ by a little: a second either side. */
const CLOCK_SLACK_MS = 1_000;

/** The period key and sequence numbers of one answer's IDs; throws (a malformed 200) when any ID is off. */
export function parseFormatted(raw: unknown[], sendT: number, recvT: number): { period: string; seqs: number[] } {
  let period = '';
  const seqs = raw.map((v) => {
    const m = typeof v === 'string' ? FORMATTED_ID.exec(v) : null;
    const date = m?.[1];
    const seqDigits = m?.[2];
    if (date === undefined || seqDigits === undefined) throw new Error(`bad formatted ID ${String(v)}`);
    if (period === '') period = date;
    else if (date !== period) throw new Error(`one answer spans two dates: ${period} and ${date}`);
    const seq = Number(seqDigits);
    if (seq < 1) throw new Error(`sequence 0 in ${v as string}`);
    return seq;
  });
  // A request lasts at most the 3 s client timeout, so at most one midnight falls in the window: its date is the
  // date at one end or the other.
  const first = formatDate(sendT - CLOCK_SLACK_MS);
  const last = formatDate(recvT + CLOCK_SLACK_MS);
  if (period !== first && period !== last) {
    throw new Error(`date ${period}, but ${FORMAT.timeZone} said ${first} when sent and ${last} when answered`);
  }
  return { period, seqs };
}

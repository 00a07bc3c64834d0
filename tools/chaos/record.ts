/**
 * Everything the clients saw: every ID returned (with node, process lifetime and time), every non-200 with its
 * status and JSON body, every connection error and timeout. IDs are kept losslessly but compactly: segment IDs as
 * ranges of consecutive IDs (a batch of 10,000 is one or two ranges), snowflake IDs as a BigInt64Array, formatted
 * IDs as ranges of sequence numbers per period key (the ID's date: one answer is one period, increasing).
 */

export type Kind = 'seg' | 'segN' | 'plain' | 'snow' | 'snowN' | 'churn' | 'drain' | 'fmt' | 'fmtN' | 'fmtDrain';
export const SEGMENT_KINDS: ReadonlySet<Kind> = new Set(['seg', 'segN', 'plain', 'churn', 'drain']);
export const SNOWFLAKE_KINDS: ReadonlySet<Kind> = new Set(['snow', 'snowN']);
export const FORMATTED_KINDS: ReadonlySet<Kind> = new Set(['fmt', 'fmtN', 'fmtDrain']);
/** The requests whose latency is measured (the background churn and the outage drains are load, not clients). */
export const MEASURED_KINDS: ReadonlySet<Kind> = new Set(['seg', 'segN', 'plain', 'snow', 'snowN', 'fmt', 'fmtN']);

export interface OkRecord {
  kind: Kind;
  node: number;
  life: number;
  sendT: number;
  recvT: number;
  /** Number of IDs in the answer. */
  n: number;
  /** Lowest and highest ID of the answer (number for segment, bigint for snowflake, the sequence for formatted). */
  min: number | bigint;
  max: number | bigint;
  /** Formatted only: the period key (the ID's date) the sequence numbers belong to. */
  period?: string;
}

export interface FailRecord {
  kind: Kind;
  node: number;
  life: number;
  sendT: number;
  recvT: number;
  /** HTTP status, or 0 for a connection error / timeout. */
  status: number;
  /** error.code of the JSON body, or the connection error code, or 'timeout'. */
  code: string;
  /** Whether the body was `{"error":{"code","message"}}` JSON (only meaningful when status > 0). */
  jsonOk: boolean;
  body: string;
  /** For status 0: the node was being killed or restarted during the request. */
  nodeWasDown: boolean;
}

export class GrowF64 {
  data: Float64Array;
  length = 0;
  constructor(capacity = 1 << 16) {
    this.data = new Float64Array(capacity);
  }
  push2(a: number, b: number): void {
    if (this.length + 2 > this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = a;
    this.data[this.length++] = b;
  }
}

class GrowI64 {
  data = new BigInt64Array(1 << 14);
  length = 0;
  push(v: bigint): void {
    if (this.length === this.data.length) {
      const next = new BigInt64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

export class Recorder {
  readonly ok: OkRecord[] = [];
  readonly fails: FailRecord[] = [];
  /** Segment IDs as [start, end] pairs. */
  readonly segRanges = new GrowF64();
  readonly snowIds = new GrowI64();
  /** Formatted sequence numbers as [start, end] pairs, per period key. */
  readonly fmtRanges = new Map<string, GrowF64>();
  segIds = 0;
  snowCount = 0;
  fmtIds = 0;
  /** Malformed 200s, out-of-order batches, wrong tags: violations found while parsing. */
  readonly badAnswers: string[] = [];
  badCount = 0;

  addSegment(kind: Kind, node: number, life: number, sendT: number, recvT: number, ids: number[]): void {
    const { first, last } = this.pushRuns(this.segRanges, ids, 'segment', node);
    this.segIds += ids.length;
    this.ok.push({ kind, node, life, sendT, recvT, n: ids.length, min: first, max: last });
  }

  /** One answer's formatted IDs: their period key and their sequence numbers, in answer order. */
  addFormatted(
    kind: Kind,
    node: number,
    life: number,
    sendT: number,
    recvT: number,
    period: string,
    seqs: number[],
  ): void {
    let ranges = this.fmtRanges.get(period);
    if (ranges === undefined) {
      ranges = new GrowF64(1 << 10);
      this.fmtRanges.set(period, ranges);
    }
    const { first, last } = this.pushRuns(ranges, seqs, 'formatted', node);
    this.fmtIds += seqs.length;
    this.ok.push({ kind, node, life, sendT, recvT, n: seqs.length, min: first, max: last, period });
  }

  /** Appends `ids` as runs of consecutive numbers; a batch must be strictly increasing. Returns its first and last. */
  private pushRuns(ranges: GrowF64, ids: number[], what: string, node: number): { first: number; last: number } {
    const first = ids[0];
    if (first === undefined) throw new Error(`${what} answer from node ${node} has no IDs`);
    let start = first;
    let prev = start;
    for (const [i, id] of ids.entries()) {
      if (i === 0) continue;
      if (!(id > prev)) {
        this.bad(`${what} batch from node ${node} not strictly increasing at index ${i}: ${prev} then ${id}`);
      }
      if (id !== prev + 1) {
        ranges.push2(start, prev);
        start = id;
      }
      prev = id;
    }
    ranges.push2(start, prev);
    return { first, last: prev };
  }

  addSnowflake(kind: Kind, node: number, life: number, sendT: number, recvT: number, ids: bigint[]): void {
    const first = ids[0];
    const last = ids.at(-1);
    if (first === undefined || last === undefined) throw new Error(`snowflake answer from node ${node} has no IDs`);
    for (const [i, id] of ids.entries()) {
      const prev = ids[i - 1];
      if (prev !== undefined && !(id > prev))
        this.bad(`snowflake batch from node ${node} not strictly increasing at index ${i}`);
      this.snowIds.push(id);
    }
    this.snowCount += ids.length;
    this.ok.push({ kind, node, life, sendT, recvT, n: ids.length, min: first, max: last });
  }

  addFail(f: FailRecord): void {
    this.fails.push(f);
  }

  bad(message: string): void {
    this.badCount++;
    if (this.badAnswers.length < 50) this.badAnswers.push(message);
    else if (this.badAnswers.length === 50) this.badAnswers.push('… (more)');
  }
}

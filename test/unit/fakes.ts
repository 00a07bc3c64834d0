import { LeafError } from '@/lib/errors';
import type { Allocation, NewTag, SegmentSource, TagInfo, TagRow } from '@/lib/store/types';

export class FakeClock {
  constructor(public t = 1_800_000_000_000) {}
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

interface Deferred {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * In-memory leaf_alloc with knobs: `hold` makes allocations wait until released, `failWith` makes them fail,
 * `allocateCalls` records the step each call asked for.
 */
export class FakeStore implements SegmentSource {
  readonly dialect = 'sqlite' as const;
  readonly rows = new Map<string, { maxId: number; step: number }>();
  readonly allocateCalls: Array<{ bizTag: string; step: number | undefined }> = [];
  listCalls = 0;
  failWith: Error | null = null;
  hold = false;
  private held: Deferred[] = [];

  constructor(tags: Array<{ bizTag: string; step: number; maxId?: number }> = []) {
    for (const t of tags) this.rows.set(t.bizTag, { maxId: t.maxId ?? 1, step: t.step });
  }

  async listTags(): Promise<TagInfo[]> {
    this.listCalls++;
    if (this.failWith) throw this.failWith;
    return [...this.rows].map(([bizTag, r]) => ({ bizTag, step: r.step }));
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    const r = this.rows.get(bizTag);
    return r && { bizTag, maxId: r.maxId, step: r.step, description: null, updateTime: new Date(0) };
  }

  async allocate(bizTag: string, step?: number): Promise<Allocation> {
    this.allocateCalls.push({ bizTag, step });
    if (this.hold) await new Promise<void>((resolve, reject) => this.held.push({ resolve, reject }));
    if (this.failWith) throw this.failWith;
    const r = this.rows.get(bizTag);
    if (!r) throw new LeafError('tag_not_found', `Tag "${bizTag}" does not exist.`);
    const added = step ?? r.step;
    r.maxId += added;
    return { bizTag, maxId: r.maxId, step: added };
  }

  async createTag({ bizTag, step, maxId = 1 }: NewTag): Promise<void> {
    this.rows.set(bizTag, { maxId, step });
  }

  async ping(): Promise<void> {
    if (this.failWith) throw this.failWith;
  }

  async close(): Promise<void> {}

  /** Lets every held allocation proceed. */
  release(): void {
    this.hold = false;
    for (const d of this.held.splice(0)) d.resolve();
  }

  get heldCount(): number {
    return this.held.length;
  }
}

/** Lets pending promise callbacks (loads landing) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

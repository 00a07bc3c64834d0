/** A node-wide sum over per-tag counters that vanish or restart at 0, which must never go down (a reset). */
export class MonotonicSum {
  private retired = 0;
  private last = new Map<string, number>();

  /** The total for this scrape, from every tag's counter now. */
  update(perTag: ReadonlyMap<string, number>): number {
    for (const [tag, before] of this.last) {
      const now = perTag.get(tag);
      if (now === undefined || now < before) this.retired += before;
    }
    let sum = this.retired;
    for (const v of perTag.values()) sum += v;
    this.last = new Map(perTag);
    return sum;
  }
}

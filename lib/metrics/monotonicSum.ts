/**
 * A node-wide counter summed over per-tag counters that can vanish (a deleted tag's buffer goes) or restart at 0
 * (a tag deleted and re-created): the sum must never go down, or Prometheus sees a counter reset. What a tag had
 * counted when it was last seen is kept as `retired` once its own counter goes away or goes back.
 */
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

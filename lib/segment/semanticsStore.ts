import type { AuditStamp } from '../audit';
import type { Semantics } from './semantics';

/** leaf_semantics as the admin API shows it: the fleet default and each tag's own setting. */
export interface SemanticsSettings {
  /** The `*` row; `leaf-ts` without one. */
  default: Semantics;
  /** Tags with their own row (a tag without one follows the default). */
  tags: Record<string, Semantics>;
}

/** What a switch did: the effective semantics before and after, and how many rows skipped one ID (max_id + 1). */
export interface SemanticsSwitch {
  before: Semantics;
  after: Semantics;
  /** leaf_alloc rows bumped (tombstones not counted). */
  bumped: number;
}

/** A switch is one transaction: leaf_semantics changed and each tag going leaf-ts → leaf raised by one. */
export interface SemanticsStore {
  getSemantics(): Promise<SemanticsSettings>;
  /** The effective semantics of one tag (its own row, else the default). */
  tagSemantics(bizTag: string): Promise<Semantics>;
  /** Sets the fleet default: every tag without its own row, and every tombstone without one, follows it. */
  setDefaultSemantics(semantics: Semantics, audit?: AuditStamp): Promise<SemanticsSwitch>;
  /** Sets a tag's own semantics; null removes its row, so it follows the default. `tag_not_found` when missing. */
  setTagSemantics(bizTag: string, semantics: Semantics | null, audit?: AuditStamp): Promise<SemanticsSwitch>;
}

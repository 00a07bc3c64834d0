/**
 * `@leaf-ts/embedded`: segment IDs in the caller's own process, straight on the database (SQLite or MySQL/MariaDB),
 * beside or without leaf-ts servers. Built into packages/embedded by its `npm run build` (and `npm pack`).
 */
export { createLeaf, EmbeddedLeaf } from './embeddedLeaf';
export { EmbeddedTag, MAX_TAKE } from './embeddedTag';
export type { EmbeddedOptions } from './options';
export { LeafError, type LeafErrorCode, isLeafError } from '../errors';
export type { Logger, LogLevel } from '../log';

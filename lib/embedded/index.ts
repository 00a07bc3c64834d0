/** `@leaf-ts/embedded`: segment IDs in the caller's process, straight on SQLite, MySQL/MariaDB or PostgreSQL. */
export { createLeaf, EmbeddedLeaf } from './embeddedLeaf';
export { EmbeddedTag, MAX_TAKE } from './embeddedTag';
export type { EmbeddedOptions } from './options';
export { LeafError, type LeafErrorCode, isLeafError } from '../errors';
export type { Logger, LogLevel } from '../log';

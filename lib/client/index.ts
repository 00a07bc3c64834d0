/** `@leaf-ts/client`: IDs at memory speed for a Node service, leased in ranges from leaf-ts nodes. */
export { LeafClient, type LeafClientOptions } from './leafClient';
export { LeafTag, MAX_TAKE } from './leafTag';
export { LeafClientError, type LeafClientErrorCode, isLeafClientError } from './errors';
export { MAX_ID, MAX_LEASE_COUNT } from './lease';
export type { FetchAnswer, FetchLike } from './leaseFetcher';
export type { Clock, TimerHandle } from '../clock';
export { type SnowflakeFleet, type SnowflakeParts, decodeSnowflakeId, snowflakeAt } from './snowflakeTime';

import { LeafError } from '../errors';
import { createLogger } from '../log';
import { currentRuntime, getRuntime } from '../runtime';
import { createIdHandler } from './idHandler';

/** The process-wide ID handler, bound to the runtime singleton. Used by server.ts and by the Next routes. */
/** Whether ID requests must carry a token; when not, the fast lane never reads a header (Node builds them lazily). */
export const idTokenRequired = Boolean(process.env.LEAF_ID_TOKEN);

export const idHandler = createIdHandler({
  runtime: () =>
    currentRuntime() ??
    getRuntime().catch((cause: unknown) => {
      throw new LeafError('not_ready', 'The service is starting or cannot reach its store; try again shortly.', { cause });
    }),
  logger: createLogger(),
  idToken: process.env.LEAF_ID_TOKEN || null,
});

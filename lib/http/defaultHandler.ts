import { processIdAccess, processLogger, runtimeOrNotReady } from '../runtime';
import { type IdHandler, createIdHandler } from './idHandler';

let handler: IdHandler | null = null;

/** The process-wide ID handler for server.ts and the Next routes, built on first use. */
export function processIdHandler(): IdHandler {
  return (handler ??= createIdHandler({
    runtime: runtimeOrNotReady,
    logger: processLogger(),
    access: processIdAccess(),
  }));
}

import { processIdAccess, processLogger, runtimeOrNotReady } from '../runtime';
import { type IdHandler, createIdHandler } from './idHandler';

let handler: IdHandler | null = null;

/**
 * The process-wide ID handler, bound to the runtime singleton and this process's configuration. Used by
 * server.ts and by the Next routes; built on first use, after server.ts has checked the configuration.
 */
export function processIdHandler(): IdHandler {
  return (handler ??= createIdHandler({
    runtime: runtimeOrNotReady,
    logger: processLogger(),
    access: processIdAccess(),
  }));
}

/**
 * Concurrent-start worker: for every {type:'job', kind:'open', round, dialect, url|file, at} it waits until `at`,
 * opens the store (openWorkerStore: MySQL, PostgreSQL or SQLite, i.e. runs migrations), closes it, and replies
 * {type:'opened', round, ok}. {type:'job', kind:'stop'} ends it.
 */
import { type WorkerDialect, openWorkerStore } from './store.mts';
import { atTime, fail, finish, nextMessage, send, type Message } from './ipc.mts';

interface Open extends Message {
  kind: 'open' | 'stop';
  round: number;
  dialect: WorkerDialect;
  url?: string;
  file?: string;
  at: number;
}

async function main(): Promise<void> {
  await send({ type: 'ready' });
  for (;;) {
    const job = await nextMessage<Open>('job');
    if (job.kind === 'stop') break;
    await atTime(job.at);
    const t = Date.now();
    try {
      const store = await openWorkerStore(job.dialect, job);
      await store.ping();
      await store.close();
      await send({ type: 'opened', round: job.round, ok: true, ms: Date.now() - t });
    } catch (error) {
      const e = error as { message?: string; code?: string; cause?: { message?: string; code?: string } };
      await send({
        type: 'opened',
        round: job.round,
        ok: false,
        ms: Date.now() - t,
        error: `round ${job.round}: ${e.code ?? ''} ${e.message ?? String(error)}${e.cause ? ` (cause: ${e.cause.code ?? ''} ${e.cause.message ?? ''})` : ''}`,
        stack: String((e.cause as { stack?: string } | undefined)?.stack ?? (error as Error).stack ?? ''),
      });
    }
  }
  await finish({ type: 'stopped' });
}

main().catch(fail);

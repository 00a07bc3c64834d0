/**
 * Worker side of test/support/procs.ts: typed-ish messages over the IPC channel, exit when the parent goes away,
 * a hard lifetime limit, and errors reported to the parent instead of dying silently.
 */
export interface Message {
  type: string;
  [key: string]: unknown;
}

if (typeof process.send !== 'function') {
  process.stderr.write('this worker must be started with an IPC channel (test/support/procs.ts)\n');
  process.exit(2);
}

let finishing = false;
// Parent died or disconnected: never linger.
process.on('disconnect', () => {
  if (!finishing) process.exit(70);
});
const lifetime = setTimeout(
  () => {
    process.stderr.write(`worker ${process.env.LEAF_WORKER_NAME} exceeded its lifetime, exiting\n`);
    process.exit(71);
  },
  Number(process.env.LEAF_WORKER_MAX_MS ?? 120_000),
);
lifetime.unref();

const queue: Message[] = [];
const waiters: Array<{ type: string; resolve: (m: Message) => void }> = [];
process.on('message', (m: Message) => {
  const waiter = waiters.find((w) => w.type === m.type);
  if (waiter !== undefined) {
    waiters.splice(waiters.indexOf(waiter), 1);
    waiter.resolve(m);
  } else queue.push(m);
});

export function nextMessage<T extends Message = Message>(type: string): Promise<T> {
  const i = queue.findIndex((m) => m.type === type);
  if (i >= 0) return Promise.resolve(queue.splice(i, 1)[0] as T);
  return new Promise<T>((resolve) => waiters.push({ type, resolve: resolve as (m: Message) => void }));
}

export function send(message: Message): Promise<void> {
  return new Promise((resolve, reject) => {
    process.send!(message, undefined, {}, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}

/** Sends the last message, closes the channel and lets the process end. */
export async function finish(message: Message): Promise<void> {
  await send(message);
  finishing = true;
  process.disconnect();
}

export async function fail(error: unknown): Promise<never> {
  const e = error as { message?: string; stack?: string; code?: string };
  try {
    await send({
      type: 'error',
      message: `${e?.code ? `[${e.code}] ` : ''}${e?.message ?? String(error)}`,
      stack: e?.stack ?? '',
    });
  } catch {
    // channel gone
  }
  process.exit(1);
}

process.on('uncaughtException', (error) => void fail(error));
process.on('unhandledRejection', (error) => void fail(error));

/** Waits until the wall clock reaches `at` (ms since epoch), so several processes act at the same moment. */
export async function atTime(at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

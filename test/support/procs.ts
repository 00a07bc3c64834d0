/**
 * Separate Node processes for the multi-process tests: `node --import tsx <worker>.mts` with an IPC channel.
 * Every worker is registered; `killAllWorkers()` (call it in afterEach/afterAll) SIGKILLs whatever is left, and
 * the workers themselves exit when the IPC channel drops (parent gone) or their own lifetime limit passes.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, track } from '../../tools/harness';

export const WORKERS_DIR = path.join(REPO_ROOT, 'test/support/workers');

export interface WorkerMessage {
  type: string;
}

export interface WorkerHandle {
  readonly name: string;
  readonly child: ChildProcess;
  send(message: WorkerMessage & Record<string, unknown>): void;
  /** Resolves with the next message of `type` (queued ones first); rejects on exit, on an 'error' message, or after `ms`. */
  next<T extends WorkerMessage = WorkerMessage>(type: string, ms: number): Promise<T>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** This file's workers (killAllWorkers); the harness's exit hook SIGKILLs any still alive when the process ends. */
const live = new Set<ChildProcess>();

export function startWorker(script: string, name: string, env: Record<string, string> = {}): WorkerHandle {
  const child = track(
    fork(path.join(WORKERS_DIR, script), [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, ...env, LEAF_WORKER_NAME: name },
    }),
  );
  live.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000);
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000);
  });

  const queue: WorkerMessage[] = [];
  const waiters: Array<{ type: string; resolve: (m: WorkerMessage) => void; reject: (e: Error) => void }> = [];
  let exitError: Error | null = null;

  const dispatch = () => {
    for (const w of waiters.splice(0)) {
      const failed = queue.find((m) => m.type === 'error');
      if (failed !== undefined) {
        const e = failed as WorkerMessage & { message?: unknown; stack?: unknown };
        w.reject(new Error(`worker ${name} reported: ${String(e.message)}\n${String(e.stack ?? '')}`));
        continue;
      }
      const m = queue.find((m) => m.type === w.type);
      if (m !== undefined) {
        queue.splice(queue.indexOf(m), 1);
        w.resolve(m);
      } else if (exitError !== null) {
        w.reject(exitError);
      } else {
        waiters.push(w);
      }
    }
  };

  child.on('message', (m: WorkerMessage) => {
    queue.push(m);
    dispatch();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      exitError = new Error(
        `worker ${name} exited (code ${code}, signal ${signal}) before sending the expected message. Output tail:\n${stderr}`,
      );
      // Let messages still in flight land first.
      setImmediate(dispatch);
      resolve({ code, signal });
    });
  });

  return {
    name,
    child,
    send(message) {
      if (child.connected) child.send(message);
    },
    next<T extends WorkerMessage>(type: string, ms: number) {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`worker ${name} sent no "${type}" message within ${ms} ms. Output tail:\n${stderr}`));
        }, ms);
        const waiter = {
          type,
          resolve: (m: WorkerMessage) => {
            clearTimeout(timer);
            resolve(m as T);
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        waiters.push(waiter);
        dispatch();
      });
    },
    exited,
    stderr: () => stderr,
  };
}

/** SIGKILLs every worker still alive and waits (bounded) for them to be gone. */
export async function killAllWorkers(): Promise<void> {
  const children = [...live];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(resolve, 5_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGKILL');
        }),
    ),
  );
}

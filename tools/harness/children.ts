/**
 * Child processes the harness started: every tracked child is SIGKILLed on process 'exit' if still alive, and is
 * stopped by its own PID (SIGTERM, then SIGKILL after a grace period), never by name.
 */
import type { ChildProcess } from 'node:child_process';
import { onExit } from './exitHooks';

const live = new Set<ChildProcess>();

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Registers `child` for the exit hook (and for stopAllChildren()); it is forgotten once it exits. */
export function track<C extends ChildProcess>(child: C): C {
  live.add(child);
  const unregister = onExit(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  child.once('exit', () => {
    live.delete(child);
    unregister();
  });
  return child;
}

/**
 * Sends `signal` (SIGTERM by default) to exactly this child and resolves once it has exited; SIGKILL when it is
 * still alive after `graceMs` (`onEscalate` is told). A child that already exited resolves at once.
 */
export async function stopChild(
  child: ChildProcess,
  graceMs = 5_000,
  { signal = 'SIGTERM', onEscalate }: { signal?: NodeJS.Signals; onEscalate?: () => void } = {},
): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  if (signal === 'SIGKILL') return exited;
  const timer = setTimeout(() => {
    if (!isRunning(child)) return;
    onEscalate?.();
    child.kill('SIGKILL');
  }, graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Stops every tracked child still running (SIGTERM, SIGKILL after `graceMs`). */
export async function stopAllChildren(graceMs = 5_000): Promise<void> {
  await Promise.all([...live].map((child) => stopChild(child, graceMs)));
}

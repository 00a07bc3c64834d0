/**
 * Synchronous last-resort cleanup on process 'exit' (normal end, process.exit(), an uncaught error): whatever the
 * harness started and did not stop yet is stopped there. One 'exit' listener for every hook; a hook returns an
 * unregister function for when its resource was stopped the ordinary way.
 */
const hooks = new Set<() => void>();
let installed = false;

export function onExit(hook: () => void): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', () => {
      for (const h of [...hooks]) {
        try {
          h();
        } catch {
          // best effort: the next hook still runs
        }
      }
    });
  }
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}

/**
 * Everything a run creates that must not outlive it (the embedded server, scratch directories,
 * benchmark objects, later mounts) registers an undo step here. Steps run in reverse order at
 * the end of a run, on failure, and on Ctrl-C/SIGTERM.
 */
type Undo = { label: string; fn: () => Promise<void> | void };

const stack: Undo[] = [];
let running: Promise<void> | null = null;

export function onCleanup(label: string, fn: () => Promise<void> | void): () => void {
  const entry = { label, fn };
  stack.push(entry);
  return () => {
    const i = stack.indexOf(entry);
    if (i >= 0) stack.splice(i, 1);
  };
}

/** Runs (once) every registered undo step, newest first; a failing step does not stop the others. */
export function cleanupAll(log: (msg: string) => void = (m) => process.stderr.write(`${m}\n`)): Promise<void> {
  running ??= (async () => {
    while (stack.length) {
      const { label, fn } = stack.pop()!;
      try {
        await fn();
      } catch (err) {
        log(`cleanup of ${label} failed: ${(err as Error).message}`);
      }
    }
    running = null;
  })();
  return running;
}

/**
 * What must not be left behind even when the user insists on exiting at once (a second Ctrl-C):
 * synchronous, quick steps (detach a mount, kill its client). Run in registration order.
 */
const emergency = new Set<() => void>();

export function onEmergencyExit(fn: () => void): () => void {
  emergency.add(fn);
  return () => emergency.delete(fn);
}

export function runEmergencyCleanup(): void {
  for (const fn of emergency) {
    try {
      fn();
    } catch {
      // best effort: the process is exiting
    }
  }
  emergency.clear();
}

/**
 * On SIGINT/SIGTERM: abort the run (so the current step stops at its next operation), clean up,
 * and exit 130. A second Ctrl-C exits at once, after detaching mounts and killing their clients.
 */
export function installSignalHandlers(abort: AbortController): void {
  let count = 0;
  const handler = (signal: NodeJS.Signals) => {
    count++;
    if (count > 1) {
      runEmergencyCleanup();
      process.exit(130);
    }
    process.stderr.write(`\n${signal}: stopping; cleaning up (press Ctrl-C again to exit at once)\n`);
    abort.abort(new Interrupted(signal));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export class Interrupted extends Error {
  constructor(readonly signal: string) {
    super(`interrupted by ${signal}`);
    this.name = 'Interrupted';
  }
}

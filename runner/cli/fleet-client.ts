import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { Interrupted, runEmergencyCleanup } from '../core/cleanup';
import { runFleetClient, type FleetClientLine, type FleetClientSpec } from '../run/fleet-client';
import { FLEET_STOP_REASON_ENV } from '../run/fleet';

/** Reads all of standard input. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The client's signals: SIGINT (Ctrl-C reaches the whole process group) interrupts, a second one
 * exits at once after detaching its mount; SIGTERM comes from the parent, which stops its clients
 * when one of them failed or the run ends, and says why in a file named by FLEET_STOP_REASON_ENV.
 */
function installClientSignals(abort: AbortController): void {
  let interrupts = 0;
  process.on('SIGINT', () => {
    if (++interrupts > 1) {
      runEmergencyCleanup();
      process.exit(130);
    }
    abort.abort(new Interrupted('SIGINT'));
  });
  process.on('SIGTERM', () => {
    if (abort.signal.aborted) return;
    const file = process.env[FLEET_STOP_REASON_ENV];
    let why = 'stopped by the run that started this client';
    try {
      if (file) why = readFileSync(file, 'utf8').trim() || why;
    } catch {
      // no reason written: the default says enough
    }
    abort.abort(new Error(why));
  });
}

/** Ends the client when the run that started it is gone (killed): its mount must not outlive it. */
function watchParent(parentPid: number, abort: AbortController): void {
  const timer = setInterval(() => {
    if (process.ppid !== parentPid && !abort.signal.aborted) abort.abort(new Error(`the run (pid ${parentPid}) that started this client is gone`));
  }, 500);
  timer.unref();
}

/** `s3ab fleet-client` (hidden): one client process of `s3ab run --clients` (runner/run/fleet.ts starts it). */
export function registerFleetClient(program: Command): void {
  program
    .command('fleet-client', { hidden: true })
    .description('one client of a local fleet step (started by `s3ab run --clients`; reads its spec as JSON on stdin)')
    // Only for `ps` and tests: which run and client a process is (the spec on stdin is what counts).
    .option('--run <id>', 'the run it belongs to')
    .option('--client <n>', 'its number in the fleet')
    .action(async () => {
      const abort = new AbortController();
      const parentPid = process.ppid;
      installClientSignals(abort);
      watchParent(parentPid, abort);
      const spec = JSON.parse(await readStdin()) as FleetClientSpec;
      const send = (line: FleetClientLine) => process.stdout.write(`${JSON.stringify(line)}\n`);
      await runFleetClient(spec, abort.signal, send);
    });
}

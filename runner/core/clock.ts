import { execFile } from 'node:child_process';
import { UserError } from './errors';

/**
 * A fleet client's clock, as its records state it: its offset from the reference (ms; positive:
 * this clock is ahead) and where that figure comes from. Clients of a fleet start a pass at one
 * instant by their own clocks (core/barrier.ts), so their offsets bound how far apart they start.
 */
export interface FleetClock {
  offsetMs: number | null;
  source: 'chrony' | 'one host';
}

/** The most a fleet runner's clock may be off before it refuses fleet steps (50 ms: well under a step's start spread, which the fleet's barrier bounds). */
export const CLOCK_BOUND_MS = 50;

/**
 * The override for runners that share one host's clock (the rehearsal's runner sandboxes): set to
 * `one-host`, the offset is not read and the records say clock_source "one host", offset null.
 */
export const ONE_HOST_CLOCK_ENV = 'S3AB_FLEET_CLOCK';

/** The offset in `chronyc tracking`'s "System time : 0.000012345 seconds fast of NTP time" line, in ms (fast: positive); null without that line. */
export function parseChronyTracking(text: string): number | null {
  const m = /^System time\s*:\s*([0-9.]+)\s+seconds\s+(fast|slow)\s+of\s+NTP time/m.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * 1000;
  return m[2] === 'fast' ? ms : -ms;
}

const FIX = 'run chronyd against the Amazon Time Sync Service (server 169.254.169.123 prefer iburst; Amazon Linux 2023 does by default): `systemctl enable --now chronyd`, then `chronyc makestep` and check `chronyc tracking`';

/** Whether an offset is within the bound; the UserError that refuses the fleet steps otherwise. */
function checkClockOffset(offsetMs: number, boundMs = CLOCK_BOUND_MS): void {
  if (Math.abs(offsetMs) > boundMs) {
    throw new UserError(`this runner's clock is ${Math.abs(offsetMs).toFixed(1)} ms ${offsetMs > 0 ? 'ahead of' : 'behind'} NTP time (chrony), beyond the ${boundMs} ms a fleet's clients may differ by at their common start`, FIX);
  }
}

/**
 * This host's clock for fleet steps: the one-host override, or chrony's offset — refused (UserError
 * naming the bound and the fix) when chrony does not answer or the offset exceeds CLOCK_BOUND_MS.
 */
export async function fleetClock(env: NodeJS.ProcessEnv = process.env, tracking: () => Promise<string> = chronyTracking): Promise<FleetClock> {
  const override = env[ONE_HOST_CLOCK_ENV];
  if (override === 'one-host') return { offsetMs: null, source: 'one host' };
  if (override !== undefined && override !== '') throw new UserError(`${ONE_HOST_CLOCK_ENV}="${override}" is not a clock override`, `unset it, or set it to one-host when every client of the fleet runs on this one host`);
  let text: string;
  try {
    text = await tracking();
  } catch (err) {
    throw new UserError(`this runner's clock offset cannot be read: \`chronyc tracking\` failed (${(err as Error).message.split('\n')[0]}); fleet steps need it within ${CLOCK_BOUND_MS} ms`, FIX);
  }
  const offsetMs = parseChronyTracking(text);
  if (offsetMs === null) throw new UserError(`\`chronyc tracking\` gave no "System time" line, so this runner's clock offset is unknown; fleet steps need it within ${CLOCK_BOUND_MS} ms`, FIX);
  checkClockOffset(offsetMs);
  return { offsetMs: Math.round(offsetMs * 1000) / 1000, source: 'chrony' };
}

function chronyTracking(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('chronyc', ['-n', 'tracking'], { timeout: 5_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message} ${stderr}`.trim())) : resolve(stdout)));
  });
}

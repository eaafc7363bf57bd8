import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLOCK_BOUND_MS } from './clock';
import { RunError } from './errors';

/**
 * The start barrier of a fleet step: N clients (processes on one host, or runners on AWS) each
 * prepare (mount, fixture checks), leave a marker that says "ready", and wait until all N markers
 * are there. The common start instant is derived from the markers themselves — the latest
 * marker's time stamp plus a lead — so every client computes the same instant from the same
 * listing, without a coordinator and without trusting its own clock to order the arrivals. The
 * stamps come from one clock: the host's file system, or the S3 server's Last-Modified (whole
 * seconds on S3, so the lead must cover a second's rounding as well as the slowest client's poll).
 */
export interface MarkerStore {
  /** Where the markers live, for messages ("s3://bucket/prefix", "/tmp/…"). */
  readonly where: string;
  /** Leaves this client's marker for `round` (a step and pass). */
  put(round: string, client: number): Promise<void>;
  /** The markers of `round`: which clients are ready and when (the store's clock, ms since the epoch). */
  list(round: string): Promise<{ client: number; atMs: number }[]>;
  /** Removes this client's markers (at the end of its run: others may still be listing them until then). */
  removeOwn(client: number): Promise<void>;
}

/**
 * The barrier's timing per store. S3 stamps a marker with whole seconds (Last-Modified), so the
 * latest marker may be up to 1 s older than its stamp says, and the others see it within a poll
 * and a listing: the lead covers both with room for a runner's clock offset (≤ 50 ms, core/clock.ts).
 * The timeout covers a runner still setting up (mounting, hashing the shared fixtures) while
 * another waits.
 */
export const FLEET_BARRIER = {
  s3: { leadMs: 3_000, pollMs: 500, timeoutMs: 10 * 60_000 },
} as const;

export interface BarrierOptions {
  /** How many clients the round waits for. */
  clients: number;
  /** This client's number (1-based). */
  client: number;
  /** A name unique within the run: the step and its pass. */
  round: string;
  /** Added to the latest marker's time stamp: the start instant. */
  leadMs: number;
  /** How long to wait for the others before giving up. */
  timeoutMs: number;
  pollMs: number;
  signal?: AbortSignal;
  /** The instant now on this client's clock (tests pass their own). */
  now?: () => number;
}

/**
 * How long after the common start a client may begin measuring and still count as starting with
 * the others: the bound a fleet's runners' clocks may differ by (core/clock.ts). The fleet already
 * accepts clients that far apart through their clocks; one later than that started further from
 * the others than the fleet allows, and its late start is flagged.
 */
export const LATE_START_LIMIT_MS = CLOCK_BOUND_MS;

/** How late a client began against the common start (0: on time, by its own clock), and whether that broke the common start. */
export function lateStart(startMs: number, begunMs: number): { lateMs: number; breaks: boolean } {
  const lateMs = Math.max(0, begunMs - startMs);
  return { lateMs, breaks: lateMs > LATE_START_LIMIT_MS };
}

/** Ready markers for the same round, from the others; when all are in, the common start. */
function startInstant(markers: { client: number; atMs: number }[], clients: number, leadMs: number): number | null {
  const ready = new Set(markers.map((m) => m.client));
  if (ready.size < clients) return null;
  return Math.max(...markers.map((m) => m.atMs)) + leadMs;
}

/**
 * Arrives at the barrier and resolves at the common start instant (ms since the epoch, on this
 * client's clock): every client's measuring begins within the clients' clock offsets (plus the
 * timer's wake-up) of each other. Throws RunError naming the clients that did not arrive.
 */
export async function arriveAndWait(store: MarkerStore, o: BarrierOptions): Promise<number> {
  const now = o.now ?? Date.now;
  await store.put(o.round, o.client);
  const deadline = now() + o.timeoutMs;
  for (;;) {
    const markers = await store.list(o.round);
    const start = startInstant(markers, o.clients, o.leadMs);
    if (start !== null) {
      await sleep(Math.max(0, start - now()), o.signal);
      return start;
    }
    if (now() > deadline) {
      const ready = new Set(markers.map((m) => m.client));
      const missing = Array.from({ length: o.clients }, (_, i) => i + 1).filter((c) => !ready.has(c));
      throw new RunError(
        `the fleet's start barrier (${o.round}) timed out after ${Math.round(o.timeoutMs / 1000)} s: client(s) ${missing.join(', ')} of ${o.clients} never reported ready at ${store.where}`,
        'a client failed while preparing (its own log says why) or is still setting up; run again, or give the fleet fewer clients');
    }
    await sleep(o.pollMs, o.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Markers as files in one folder of this host (client processes of `s3ab run --clients`): the file's mtime is the stamp. */
export class FileMarkers implements MarkerStore {
  constructor(readonly where: string) {}

  async put(round: string, client: number): Promise<void> {
    await mkdir(this.where, { recursive: true });
    await writeFile(join(this.where, `${safe(round)}--${client}.ready`), '');
  }

  async list(round: string): Promise<{ client: number; atMs: number }[]> {
    const prefix = `${safe(round)}--`;
    const names = (await readdir(this.where).catch(() => [] as string[])).filter((n) => n.startsWith(prefix) && n.endsWith('.ready'));
    return Promise.all(names.map(async (n) => ({ client: Number(n.slice(prefix.length, -'.ready'.length)), atMs: (await stat(join(this.where, n))).mtimeMs })));
  }

  async removeOwn(client: number): Promise<void> {
    const names = await readdir(this.where).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.endsWith(`--${client}.ready`)).map((n) => rm(join(this.where, n), { force: true })));
  }
}

const safe = (round: string) => round.replace(/[^A-Za-z0-9._-]/g, '_');

/**
 * The gate measuring threads pass before they are released (runner/workloads/kit/threads.ts). In a fleet
 * step the step sets it for each pass: every client's threads are made and warmed up first (16
 * reader threads warming up on a shared host take seconds, after the pass's own barrier), then all
 * clients' threads are released at one more common instant. Null outside a fleet step.
 */
let threadsGate: (() => Promise<void>) | null = null;

/** Sets the gate (a barrier round per call); returns the function that removes it. */
export function setThreadsGate(gate: () => Promise<void>): () => void {
  threadsGate = gate;
  return () => {
    if (threadsGate === gate) threadsGate = null;
  };
}

/** Passes the gate, if one is set: resolves at the fleet's common release instant. */
export function passThreadsGate(): Promise<void> | null {
  return threadsGate ? threadsGate() : null;
}

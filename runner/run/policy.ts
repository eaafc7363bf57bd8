import type { Measurement } from '../core/batch';
import { missingRequirement, type Capability } from '../core/capabilities';
import { ExitCode, UserError } from '../core/errors';
import { MAX_CLIENTS, type MethodChoice, type Step } from '../core/matrix';
import type { Availability } from '../core/method';
import type { FleetFacts } from '../core/workload';
import { isRunId, RUN_ID_EXAMPLE, type MatrixCacheState, type PassCache } from '../core/vocabulary';
import type { ResultRecord } from '../core/record.generated';
import type { RunManifest } from '../results/writer';

/**
 * The rules of a run, as pure functions: which passes a step runs, which methods are skipped, when
 * a step failed, the final status and the exit code. runBenchmark and runStep only carry them out;
 * test/unit/run-policy.test.ts checks them without a server, a mount or a child process.
 */

/** One pass of a workload in a step: its cache state, and whether its measurements are kept (false: priming). */
export interface Pass {
  cache: PassCache;
  keep: boolean;
}

/**
 * The passes of one step. An object method keeps nothing: one pass, 'none'. On a mount the
 * matrix's cache states run in order on one mount (cold first); a cold-only workload runs once
 * cold; a warm state without a cold one first warms the mount with an unrecorded pass.
 */
export function passesFor(kind: 'object' | 'mount', coldOnly: boolean, cache: readonly MatrixCacheState[]): Pass[] {
  if (kind === 'object') return [{ cache: 'none', keep: true }];
  if (coldOnly) return [{ cache: 'cold', keep: true }];
  const states = cache.length ? cache : (['cold'] as const);
  const passes: Pass[] = states.map((c) => ({ cache: c, keep: true }));
  if (states[0] === 'warm') passes.unshift({ cache: 'warm', keep: false });
  return passes;
}

/** Why a step does not apply (the workload needs what the method does not offer), or null when it runs. */
export function notApplicableReason(
  method: { name: string; kind: 'object' | 'mount'; offers: readonly Capability[] },
  workload: { name: string; requires: readonly Capability[] },
): string | null {
  return missingRequirement(method, workload);
}

/** Why a fleet step (clients > 1) does not apply: its workload makes no sense at fleet scale (its descriptor says why); null when it runs. */
export function fleetNotApplicableReason(workload: { name: string; fleet: FleetFacts }, clients: number): string | null {
  if (clients <= 1 || !('notApplicable' in workload.fleet)) return null;
  return `${workload.name} with ${clients} clients at once: ${workload.fleet.notApplicable}`;
}

/** What to do with the matrix's methods, given what this host offers. */
export interface AvailabilityPlan {
  /** Optional methods missing here: announced, not run, not failed. */
  skipped: NonNullable<RunManifest['skipped']>;
  /** The steps that run here. */
  steps: Step[];
}

/**
 * The methods a run must find on its host: every method of the matrix; with only some steps asked
 * for (a runner's shard of an AWS execution, whose setup installs only what its steps need), the
 * methods of those steps that apply — a step that does not apply records so at once, without its
 * client.
 */
export function methodsToProbe(methods: readonly MethodChoice[], chosen: readonly Step[], onlySomeSteps: boolean, applies: (step: Step) => boolean): MethodChoice[] {
  if (!onlySomeSteps) return [...methods];
  const used = new Set(chosen.filter(applies).map((s) => s.method));
  return methods.filter((m) => used.has(m));
}

/**
 * A method missing on this host fails the run before anything is created, unless the matrix marks
 * it optional: then its steps are skipped (they keep their numbers) and the run says so. A matrix
 * whose every method is skipped is rejected (unless only some steps were asked for: a runner of
 * an AWS execution may hold steps of one optional method only).
 */
export function planAvailability(methods: readonly MethodChoice[], availability: ReadonlyMap<MethodChoice, Availability>, chosen: readonly Step[], onlySomeSteps: boolean,
  installHint: (method: string) => string | null = () => null): AvailabilityPlan {
  const skipped: AvailabilityPlan['skipped'] = [];
  const unavailable = new Set<MethodChoice>();
  for (const choice of methods) {
    const a = availability.get(choice);
    if (!a || a.available) continue;
    if (choice.optional) {
      unavailable.add(choice);
      skipped.push({ method: choice.name, variant: choice.variant, reason: a.reason ?? 'not available on this host', steps: chosen.filter((st) => st.method === choice).length });
      continue;
    }
    const others = [...new Set(methods.filter((m) => m.name !== choice.name).map((m) => m.name))];
    const install = a.hostLacks ? null : installHint(choice.name);
    const how = a.hostLacks ? 'run it on a host that has what it needs' : install ? `install it (\`${install}\`)` : 'install it';
    throw new UserError(`method "${choice.name}" is not available on this host: ${a.reason}`,
      others.length ? `${how}, or leave it out with --methods ${others.join(',')}` : `${how} (see \`s3ab list\`)`);
  }
  const steps = chosen.filter((st) => !unavailable.has(st.method));
  if (!steps.length && !onlySomeSteps) {
    throw new UserError(`nothing to measure here: every method of the matrix is optional and not available on this host (${skipped.map((x) => `${x.method}: ${x.reason}`).join('; ')})`,
      'add a method that runs here (see `s3ab list`), or run this matrix where its methods are available (on AWS: `s3ab aws run`)');
  }
  return { skipped, steps };
}

/** The steps asked for: all of them, or the numbers given (`s3ab step`). Throws UserError for a number not in the matrix. */
export function chooseSteps(all: readonly Step[], only?: readonly number[]): Step[] {
  for (const n of only ?? []) {
    if (!Number.isInteger(n) || n < 1 || n > all.length) throw new UserError(`step ${n} is not in the matrix (it has ${all.length} steps)`, `give a step from 1 to ${all.length}`);
  }
  return only ? all.filter((st) => only.includes(st.index)) : [...all];
}

/**
 * `s3ab run --clients LIST`: the fleet sizes. A list is taken as given; a single N above 1 means
 * [1, N], because scaling is read against the one-client baseline of the same run. Throws UserError.
 */
export function parseClientsOption(text: string): number[] {
  const items = text.split(',').map((s) => s.trim());
  const bad = items.find((s) => !/^\d+$/.test(s) || Number(s) < 1 || Number(s) > MAX_CLIENTS);
  if (bad !== undefined || !items.length) {
    throw new UserError(`--clients "${text}": ${bad === undefined || bad === '' ? 'no fleet size given' : `"${bad}" is not a whole number from 1 to ${MAX_CLIENTS}`}`,
      `give fleet sizes from 1 to ${MAX_CLIENTS}, e.g. --clients 3 (run with 1 and 3 clients) or --clients 1,2,4`);
  }
  const sizes = [...new Set(items.map(Number))].sort((a, b) => a - b);
  return sizes.length === 1 && sizes[0] > 1 ? [1, sizes[0]] : sizes;
}

/** Checks the run's identity and endpoint options before anything is created. Throws UserError. */
export function checkRunOptions(o: { runId?: string; runnerId?: string; endpoint?: string; bucket?: string; awsTarget?: boolean; region?: string }): void {
  if (o.region !== undefined && !o.region.trim()) throw new UserError('--region is empty', 'give the region of the bucket, e.g. --region us-east-1 (an S3-compatible server may want its own name, such as auto), or leave the option out');
  if (o.runId !== undefined && !isRunId(o.runId)) throw new UserError(`run id "${o.runId}" is not valid`, `use the form ${RUN_ID_EXAMPLE}`);
  if (o.runnerId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(o.runnerId)) throw new UserError(`runner id "${o.runnerId}" is not valid`, 'use letters, digits, - and _ only (an EC2 instance id, for example)');
  if (o.endpoint && !o.bucket) throw new UserError('--endpoint needs --bucket', 'name an existing bucket at that endpoint with --bucket NAME');
  if (o.bucket && !o.endpoint && !o.awsTarget) throw new UserError('--bucket needs --endpoint', 'give the endpoint URL with --endpoint URL');
  if (o.endpoint && !/^https?:\/\/[^/]+/.test(o.endpoint)) throw new UserError(`--endpoint "${o.endpoint}" is not a URL`, 'write it as http://HOST:PORT or https://HOST');
}

/** A temp folder a run fills, with what it needs there. */
export interface SpaceNeed {
  /** What fills it, for the message: "the steps' local files", "the embedded server's objects". */
  role: string;
  folder: string;
  /** Its file system (stat's dev): folders on one file system share its free space. */
  device: number;
  freeBytes: number;
  needBytes: number;
  /** The biggest contributor, named in the message. */
  largest: string;
}

/**
 * The run fits its temp folders: what it generates at once (the largest step's files and objects,
 * the embedded server's fixtures) against the free space, summed where folders share a file system.
 */
export function spaceProblem(needs: readonly SpaceNeed[], format: (bytes: number) => string): { problem: string; fix: string } | null {
  const byDevice = new Map<number, SpaceNeed[]>();
  for (const n of needs) byDevice.set(n.device, [...(byDevice.get(n.device) ?? []), n]);
  for (const group of byDevice.values()) {
    const need = group.reduce((a, n) => a + n.needBytes, 0);
    const free = group[0].freeBytes;
    if (need <= free) continue;
    const parts = group.filter((n) => n.needBytes > 0).map((n) => `${n.role} in ${n.folder}: ${format(n.needBytes)} (${n.largest})`).join('; ');
    return {
      problem: `the run needs about ${format(need)} of temp space but ${group.map((n) => n.folder).filter((f, i, a) => a.indexOf(f) === i).join(' and ')} ${group.length > 1 ? 'have' : 'has'} ${format(free)} free — ${parts}`,
      fix: 'lower the sizes or file counts in the matrix, free space there, or point TMPDIR (the steps\' files) or S3AB_TMP (the embedded server\'s objects) at a bigger folder',
    };
  }
  return null;
}

/**
 * A payload read (a measurement of a workload's payloadReads) set against the server's log. The
 * patched embedded server logs the GET bytes it wrote to the connection, after the send returned.
 */
export interface ReadCheck {
  cache: string;
  bytesRead: number;
  /** GET bytes the server sent in the measurement's window; null: no server log (fleet clients, AWS, a custom endpoint), the check was not possible. */
  getBytes: number | null;
  /**
   * Where the measurement knows which object each read was: the bytes read of each, and the GET
   * bytes the server sent for each (by key). Null or absent: only the window's total is known.
   */
  perObject?: { read: Readonly<Record<string, number>>; sent: ReadonlyMap<string, number> } | null;
}

/**
 * Bytes read that the server did not send. Per object where the measurement knows its objects, so
 * that prefetch or retried ranges over-reading one object cannot cover another served from a
 * cache; else the window's total shortfall (which such over-read can hide). Null: no server log.
 */
export function undeliveredBytes(r: ReadCheck): number | null {
  if (r.getBytes === null) return null;
  if (!r.perObject) return Math.max(0, r.bytesRead - r.getBytes);
  let short = 0;
  for (const [key, read] of Object.entries(r.perObject.read)) short += Math.max(0, read - (r.perObject.sent.get(key) ?? 0));
  return short;
}

/**
 * A cache claim checked against the server's log: a cold read with bytes the server did not send
 * came (at least partly) from a cache; a warm read for which it sent every byte again (in all) was
 * not warm. Null when the claim holds or cannot be checked.
 */
export function cacheClaimFlag(r: ReadCheck): 'served-from-cache' | 'not-warm' | null {
  const undelivered = undeliveredBytes(r);
  if (undelivered === null || r.getBytes === null || r.bytesRead <= 0) return null;
  if (r.cache === 'cold' || r.cache === 'none') return undelivered > 0 ? 'served-from-cache' : null;
  if (r.cache.startsWith('warm')) return r.getBytes >= r.bytesRead ? 'not-warm' : null;
  return null;
}

/**
 * Whether the server's log shows it sent every byte of each object a cold (or cache-less) read
 * read: only a per-object account can show it (a window's total can hide a partial cache hit
 * under over-read of the rest).
 */
function everyByteDelivered(r: ReadCheck): boolean {
  return (r.cache === 'cold' || r.cache === 'none') && r.bytesRead > 0 && !!r.perObject && undeliveredBytes(r) === 0;
}

/**
 * A record's flags once the server's log is read. A payload read (`read`, null for any other
 * measurement) gets its cache claim checked; `cache-unchecked` where no server log exists. A figure
 * above the link estimate (served-from-cache from the estimate) whose every byte the server is
 * shown to have sent keeps a flag: `link-estimate-low`, a fact about the estimate, not the method.
 * A figure served from a cache says nothing about the network.
 */
export function reconciledFlags(flags: readonly ResultRecord['flags'][number][], read: ReadCheck | null): ResultRecord['flags'] {
  let out = [...flags];
  const add = (f: ResultRecord['flags'][number]) => { if (!out.includes(f)) out.push(f); };
  if (read && read.bytesRead > 0) {
    if (read.getBytes === null) add('cache-unchecked');
    const claim = cacheClaimFlag(read);
    if (claim) add(claim);
    else if (out.includes('served-from-cache') && everyByteDelivered(read)) {
      out = out.filter((f) => f !== 'served-from-cache');
      add('link-estimate-low');
    }
  }
  return out.includes('served-from-cache') ? out.filter((f) => f !== 'possibly-network-capped') : out;
}

/** The S3AB_* variables the runner reads, checked before anything is created (a typo must not be ignored without a word). */
export function checkEnvironment(env: Record<string, string | undefined>, isDirectory: (path: string) => boolean): void {
  const link = env.S3AB_LINK_LIMIT_MIBS;
  if (link !== undefined && !(Number(link) > 0)) throw new UserError(`S3AB_LINK_LIMIT_MIBS="${link}" is not a positive number of MiB/s`, 'set it to the link\'s limit, e.g. S3AB_LINK_LIMIT_MIBS=1192 for 10 Gbit/s, or unset it');
  const stall = env.S3AB_STALL_SECONDS;
  if (stall !== undefined && !(Number(stall) > 0)) throw new UserError(`S3AB_STALL_SECONDS="${stall}" is not a positive number of seconds`, 'set the stall watchdog\'s bound in seconds, e.g. S3AB_STALL_SECONDS=30, or unset it');
  if (env.S3AB_TMP !== undefined && !isDirectory(env.S3AB_TMP)) throw new UserError(`S3AB_TMP="${env.S3AB_TMP}" is not a directory`, 'point it at an existing writable directory (a RAM disk such as /dev/shm for the embedded server), or unset it');
}

/**
 * A step failed when it could not run to its end (its records carry `step-failed`). A measurement
 * whose operations failed or returned wrong data is a result about the method: recorded as
 * failed, listed under integrity, and the step (and run) still complete.
 */
export function stepFailed(records: readonly { flags: readonly string[] }[]): boolean {
  return records.some((r) => r.flags.includes('step-failed'));
}

/**
 * A measurement that failed because the client went away (ENOTCONN, "Transport endpoint is not
 * connected") names why, wherever it is shown: the step's cause (the client's death, a stall)
 * before the operation's own error.
 */
export function withFailureCause<M extends Pick<Measurement, 'status' | 'errorSample'>>(m: M, failure: unknown): M {
  const cause = failure instanceof Error ? failure.message : null;
  if (!cause || m.status !== 'failed' || !m.errorSample || m.errorSample.includes(cause)) return m;
  if (!/ENOTCONN|ECONNABORTED|not connected|ECONNRESET|aborted/i.test(m.errorSample)) return m;
  return { ...m, errorSample: `${cause}: ${m.errorSample}` };
}

/** How a run ended: the manifest's status and problem. */
export function finalStatus(p: { aborted: Error | null; interrupted: boolean; stepsFailed: number; stepsDone: number; stepsTotal: number }): Pick<RunManifest, 'status' | 'problem'> {
  const status: RunManifest['status'] = p.interrupted ? 'interrupted' : p.aborted || p.stepsFailed ? 'failed' : 'complete';
  let problem = p.aborted ? p.aborted.message : p.stepsFailed ? `${p.stepsFailed} of ${p.stepsTotal} steps failed` : null;
  if (p.stepsDone < p.stepsTotal && !problem) problem = 'not every step ran';
  return { status: problem && status === 'complete' ? 'failed' : status, problem };
}

/** The CLI's exit code for a run's status: 0 complete, 130 interrupted, 1 anything else. */
export function exitCodeFor(status: RunManifest['status']): number {
  if (status === 'complete') return ExitCode.ok;
  if (status === 'interrupted') return ExitCode.interrupted;
  return ExitCode.runFailed;
}

import { RUNNER_USER_AGENT, parseAccessLogLine, requestType, type AccessLogEntry } from '../../runner/endpoint/access-log';
import type { RequestType } from '../../runner/core/request-types';
import type { PreparationFigure, StepFigure } from '../../runner/plan/measurement';

/** The fields of a result record this needs. */
export interface StepRecord {
  step: number;
  method: string;
  method_variant: string;
  workload: string;
  started_at: string;
  recorded_at: string;
  duration_ms: number | null;
  host: { runner_id: string | null };
  cache: string;
  throughput_mib_s: number | null;
  flags: string[];
}

/** The highest throughput of a step's cold or cache-less measurements, served-from-cache figures left out: what it asks of a link. */
export function peakMiBps(records: readonly Pick<StepRecord, 'cache' | 'throughput_mib_s' | 'flags'>[]): number {
  const link = records.filter((r) => !r.cache.startsWith('warm') && !r.flags.includes('served-from-cache'));
  return Math.max(0, ...link.map((r) => r.throughput_mib_s ?? 0));
}

/** A run-step command on one runner: when it started and ended (epoch ms). */
export interface CommandWindow { runner: string; startedAt: number; endedAt: number }

/** The epoch second of an access-log line's time field: `[24/November/2026:04:27:18 +0000]` (versitygw writes the month in full). */
export function accessLogSecond(line: string): number | null {
  const m = /\[(\d{2})\/(\w+)\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})\]/.exec(line);
  if (!m) return null;
  const t = Date.parse(`${m[2]} ${m[1]} ${m[3]} ${m[4]}:${m[5]}:${m[6]} GMT${m[7]}`);
  return Number.isNaN(t) ? null : t / 1000;
}

/**
 * Steps run one after another on a runner, so a step's window runs from the previous step's last
 * record (or its own first measurement, for a runner's first step) to its own last record; the
 * preparation runs from the command's start to the first step's window. The access log has
 * one-second timestamps and many steps take less than a second, so time alone cannot place a
 * request: a request goes to a step whose window overlaps its log second and whose method sent it
 * (`methodOf`: its client's User-Agent), the one overlapping that second most; the runner's own
 * requests (mounting, fixture checks, cleanup) and unknown agents go to the step overlapping the
 * second most. A method's repetitions of one workload and its variants may still trade a boundary
 * second's requests — the model adds those up per method and workload. Only the runner's own
 * records count (the document functions write records of their own). One runner here: the
 * rehearsal's runners share one server; call this with one runner's figures only. `accessLog` is
 * the log's lines, streamed (file-lines.ts) or in memory.
 */
export async function stepFigures(
  records: readonly StepRecord[], accessLog: AsyncIterable<string> | Iterable<string>, command: CommandWindow, dataBucket: string,
  methodOf: (userAgent: string) => string | null,
): Promise<{ steps: StepFigure[]; preparation: PreparationFigure }> {
  const byStep = new Map<number, StepRecord[]>();
  for (const r of records) if (r.host.runner_id === command.runner) byStep.set(r.step, [...(byStep.get(r.step) ?? []), r]);
  const ordered = [...byStep.entries()].map(([index, rs]) => ({
    index, first: rs[0], measured: rs.reduce((a, r) => a + (r.duration_ms ?? 0), 0) / 1000, peak: peakMiBps(rs),
    start: Math.min(...rs.map((r) => Date.parse(r.started_at))),
    end: Math.max(...rs.map((r) => Date.parse(r.recorded_at))),
  })).sort((a, b) => a.end - b.end);
  const windows = ordered.map((s, i) => ({ ...s, from: i === 0 ? s.start : ordered[i - 1].end }));
  const empty = () => ({ requests: {} as Partial<Record<RequestType, number>>, bytesOut: 0, bytesIn: 0 });
  const preparation = { runner: command.runner, seconds: ((windows[0]?.from ?? command.endedAt) - command.startedAt) / 1000, ...empty() };
  const steps: StepFigure[] = windows.map((w) => ({
    index: w.index, runner: command.runner, method: w.first.method, variant: w.first.method_variant, workload: w.first.workload, seconds: (w.end - w.from) / 1000,
    measuredSeconds: Math.min(w.measured, (w.end - w.from) / 1000), peakMiBps: w.peak, runnerRequests: {}, ...empty(),
  }));
  const add = (into: { requests: Partial<Record<RequestType, number>>; bytesOut: number; bytesIn: number }, e: AccessLogEntry, type: RequestType) => {
    into.requests[type] = (into.requests[type] ?? 0) + 1;
    into.bytesOut += e.bytesSent;
    if (type === 'put' || type === 'mpu_part') into.bytesIn += e.objectSize;
  };
  /** The step to charge a request of log second [t, t + 1 s) sent by `method` (null: the runner or unknown). */
  const stepAt = (t: number, method: string | null): number => {
    const overlap = (w: (typeof windows)[number]) => Math.min(w.end + 1, t + 1000) - Math.max(w.from, t);
    const over = windows.map((w, i) => ({ i, o: overlap(w), method: w.first.method })).filter((x) => x.o > 0);
    const best = (xs: typeof over) => xs.reduce((a, b) => (b.o >= a.o ? b : a));
    const own = method ? over.filter((x) => x.method === method) : [];
    if (own.length) return best(own).i;
    if (method) {
      // The method's request landed in a second its own steps do not reach (a client's background
      // upload after its step's last record): its nearest step before it.
      const before = windows.map((w, i) => ({ i, w })).filter((x) => x.w.first.method === method && x.w.from <= t);
      if (before.length && t - before[before.length - 1].w.end < 5000) return before[before.length - 1].i;
    }
    return over.length ? best(over).i : steps.length - 1;
  };
  for await (const line of accessLog) {
    const e = parseAccessLogLine(line);
    const second = e && line.split(' ')[1] === dataBucket ? accessLogSecond(line) : null;
    if (!e || second === null) continue;
    const t = second * 1000;
    if (t + 1000 <= command.startedAt - 1000 || t > command.endedAt + 1000) continue;
    const type = requestType(e);
    if (!windows.length || t + 1000 <= windows[0].from) { add(preparation, e, type); continue; }
    const own = e.userAgent.includes(RUNNER_USER_AGENT);
    const step = steps[stepAt(t, own ? null : methodOf(e.userAgent))];
    add(step, e, type);
    if (own) step.runnerRequests[type] = (step.runnerRequests[type] ?? 0) + 1;
  }
  return { steps, preparation };
}

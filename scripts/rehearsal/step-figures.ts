import { parseAccessLogLine, requestType, type AccessLogEntry } from '../../runner/endpoint/access-log';
import type { RequestType } from '../../runner/endpoint/access-log';

/**
 * What each step of a rehearsed execution cost, measured: its wall time on its runner and every S3
 * request the runner made while it ran (the measured client's and the runner's own: mounts, fixture
 * checks, cleanup), from the server's access log. scripts/cost-model.ts scales these to AWS.
 */
export interface StepFigure {
  index: number;
  runner: string;
  method: string;
  variant: string;
  workload: string;
  seconds: number;
  requests: Partial<Record<RequestType, number>>;
  /** Bytes the server sent (GET) and received (PUT, parts). */
  bytesOut: number;
  bytesIn: number;
}

/** A runner's preparation before its first step: preflight, link measurement, fixtures. */
export interface PreparationFigure {
  runner: string;
  seconds: number;
  requests: Partial<Record<RequestType, number>>;
  bytesOut: number;
  bytesIn: number;
}

/** The fields of a result record this needs. */
export interface StepRecord {
  step: number;
  method: string;
  method_variant: string;
  workload: string;
  started_at: string;
  recorded_at: string;
  host: { runner_id: string | null };
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
 * preparation runs from the command's start to the first step's window. A request belongs to the
 * window holding the middle of its log second (the log has one-second timestamps: a request in a
 * boundary second may land in the neighbouring step — a cost figure, not a per-measurement count).
 * One runner here: the rehearsal's runners share one server, so with several runners a request
 * cannot be told apart by time; call this with one runner's figures only.
 */
export function stepFigures(records: readonly StepRecord[], accessLog: string, command: CommandWindow, dataBucket: string): { steps: StepFigure[]; preparation: PreparationFigure } {
  const byStep = new Map<number, StepRecord[]>();
  for (const r of records) byStep.set(r.step, [...(byStep.get(r.step) ?? []), r]);
  const ordered = [...byStep.entries()].map(([index, rs]) => ({
    index, first: rs[0],
    start: Math.min(...rs.map((r) => Date.parse(r.started_at))),
    end: Math.max(...rs.map((r) => Date.parse(r.recorded_at))),
  })).sort((a, b) => a.end - b.end);
  const windows = ordered.map((s, i) => ({ ...s, from: i === 0 ? s.start : ordered[i - 1].end }));
  const empty = () => ({ requests: {} as Partial<Record<RequestType, number>>, bytesOut: 0, bytesIn: 0 });
  const preparation = { runner: command.runner, seconds: ((windows[0]?.from ?? command.endedAt) - command.startedAt) / 1000, ...empty() };
  const steps: StepFigure[] = windows.map((w) => ({
    index: w.index, runner: command.runner, method: w.first.method, variant: w.first.method_variant, workload: w.first.workload, seconds: (w.end - w.from) / 1000, ...empty(),
  }));
  const add = (into: { requests: Partial<Record<RequestType, number>>; bytesOut: number; bytesIn: number }, e: AccessLogEntry) => {
    const type = requestType(e);
    into.requests[type] = (into.requests[type] ?? 0) + 1;
    into.bytesOut += e.bytesSent;
    if (type === 'put' || type === 'mpu_part') into.bytesIn += e.objectSize;
  };
  for (const line of accessLog.split('\n')) {
    const e = parseAccessLogLine(line);
    const second = e && line.split(' ')[1] === dataBucket ? accessLogSecond(line) : null;
    if (!e || second === null) continue;
    const t = second * 1000 + 500;
    if (t < command.startedAt - 1000 || t > command.endedAt + 1000) continue;
    const i = windows.findIndex((w) => t <= w.end + 500);
    if (windows.length && t < windows[0].from) add(preparation, e);
    else if (i >= 0) add(steps[i], e);
    else if (steps.length) add(steps[steps.length - 1], e);
  }
  return { steps, preparation };
}

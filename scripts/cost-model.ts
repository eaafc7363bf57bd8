// The measurements the model of an AWS execution is made from, and the docs' table of it. The
// model itself is product code (runner/plan/: `s3ab aws estimate`, ValidateInput and `s3ab aws
// run` use it); this script measures and regenerates:
//
//   npm run cost:aws -- --measure PROFILE   rehearse PROFILE here (seed: its sample) and write assets/measured/PROFILE.json
//   npm run cost:aws -- --docs              regenerate the table in docs/runner-types.md (test/unit/aws-estimate.test.ts fails when it is stale)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { failScript, scriptOptions } from './script-cli';
import { UserError } from '../runner/core/errors';
import { DEFAULT_RUNNER_INSTANCE_TYPE } from '../lib/instance-types';
import { MEASURED_PROFILES, sampleOf, type Measurement, type StateFigure } from '../runner/plan/measurement';
import { estimateFor, runnersLine } from '../runner/aws/estimate';
import type { ExecutionEstimate } from '../runner/plan/execution-model';

/** The execution input's Lambda benchmark as an execution runs it by default (lambda/validate-input.ts). */
const LAMBDAS = { documents: 20, repetitions: 3 };
/** A rehearsal's command checks, 30 s apart as on AWS before callbacks: kept for the rehearsal's own figures. */
const POLL_SECONDS = 30;

export function measurementPath(profile: string): string {
  return join(__dirname, '..', 'assets', 'measured', `${profile}.json`);
}

/** Rehearses `profile` (or its sample) with one runner and keeps what the model needs. */
async function measure(profile: string): Promise<Measurement> {
  const divisor = MEASURED_PROFILES[profile];
  if (!divisor) throw new UserError(`--measure ${profile}: no measured model of this profile`, `give one of ${Object.keys(MEASURED_PROFILES).join(', ')}`);
  const { $schema: _schema, ...json } = JSON.parse(readFileSync(join(__dirname, '..', 'assets', 'profiles', `${profile}.json`), 'utf8'));
  const matrix = divisor > 1 ? sampleOf(json, divisor) : json;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { rehearse } = require('./rehearsal/rehearse') as typeof import('./rehearsal/rehearse');
  const r = await rehearse({ input: { matrix, runners: [{ instanceType: DEFAULT_RUNNER_INSTANCE_TYPE, count: 1 }], layout: 'shard', lambdas: LAMBDAS }, pollSeconds: POLL_SECONDS, serverOnDisk: true, log: (l) => console.error(l) });
  if (r.status !== 'SUCCEEDED' || !r.measured) throw new Error(`the rehearsal of ${profile} did not succeed: ${r.error?.name}: ${r.error?.message}`);
  const states: Record<string, StateFigure> = Object.fromEntries(r.states.map((s) => [s.name, { count: s.count, totalMs: s.totalMs, longestMs: s.longestMs }]));
  return {
    profile, matrix, sampleDivisor: divisor, measuredAt: new Date().toISOString(), host: `${os.cpus().length} vCPU ${os.cpus()[0]?.model ?? ''}`.trim(),
    rehearsal: { wallSeconds: Math.round(r.wallMs / 100) / 10, requests: r.s3.requests, versionsWritten: r.s3.versionsCreated, polls: r.polls, historyEvents: r.historyEvents },
    steps: r.measured.steps, preparation: r.measured.preparation, states, lambdas: LAMBDAS,
  };
}

/** The page that holds the generated table (between ESTIMATE_MARKERS), relative to the repository root. */
export const ESTIMATE_PAGE = 'docs/runner-types.md';

/** The profiles the table models. */
export const ESTIMATE_PROFILES = ['quick', 'mounts', 'seed', 'full', 'fleet', 's3files-documented'] as const;

const minutes = (s: number) => (s < 3600 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`);
const dollars = (x: number) => `$${x.toFixed(2)}`;
const count = (x: number) => Math.round(x).toLocaleString('en-US');

/**
 * The docs' table: each profile's modelled execution (`s3ab aws estimate PROFILE`: a warm build
 * cache), the same plan's wall with a cold one (–: no runner builds a client), then its measured
 * clients' own requests per method.
 */
export function estimateTable(estimates: Record<string, ExecutionEstimate> = Object.fromEntries(ESTIMATE_PROFILES.map((p) => [p, estimateFor({ profile: p })]))): string {
  const names = Object.keys(estimates);
  const rows = names.map((p) => {
    const e = estimates[p];
    const hits = e.budgetHits.reduce((a, h) => a + h.steps, 0);
    // A fleet step runs on each of its clients' runners: the matrix's steps are counted once.
    return `| \`${p}\` | ${new Set(e.steps.map((x) => x.index)).size} | ${runnersLine(e)}${e.layout === 'fleet' ? ' (layout fleet)' : ''} | ${minutes(e.wallSeconds)} | ${e.coldBuildExtraSeconds > 0 ? minutes(e.coldWallSeconds) : '–'} | ${dollars(e.executionDollars)} | ${dollars(e.methodsDollars)} | ${hits} | ${count(e.historyEvents)} | ${e.measuredProfile}${MEASURED_PROFILES[e.measuredProfile] > 1 ? ' (sample ÷ ' + MEASURED_PROFILES[e.measuredProfile] + ')' : ''} |`;
  });
  const methods = [...new Set(names.flatMap((p) => estimates[p].methodsRequests.map((r) => r.method)))];
  const cell = (p: string, method: string) => {
    const r = estimates[p].methodsRequests.find((x) => x.method === method);
    return r ? `${count(r.requests.total)} (${dollars(r.dollars)})` : '–';
  };
  return [
    '| profile | steps | runners | modelled wall | … with a cold build cache | the execution\'s own cost | the measured clients\' own requests | steps at their budget | history events | measured from |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
    '',
    'The measured clients\' own S3 requests per method (and their cost), per execution:',
    '',
    `| method | ${names.map((p) => `\`${p}\``).join(' | ')} |`,
    `|---|${names.map(() => '---:').join('|')}|`,
    ...methods.map((m) => `| ${m} | ${names.map((p) => cell(p, m)).join(' | ')} |`),
  ].join('\n');
}

export const ESTIMATE_MARKERS = ['<!-- aws-estimate: generated by `npm run cost:aws -- --docs`; do not edit -->', '<!-- /aws-estimate -->'] as const;

/** The page (ESTIMATE_PAGE) with its generated block replaced by `table`. */
export function withTable(page: string, table: string): string {
  const [open, close] = ESTIMATE_MARKERS;
  const from = page.indexOf(open);
  const to = page.indexOf(close);
  if (from < 0 || to < from) throw new Error(`${ESTIMATE_PAGE} has no ${open} … ${close} block`);
  return `${page.slice(0, from + open.length)}\n${table}\n${page.slice(to)}`;
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const values = scriptOptions('cost:aws', { docs: { type: 'boolean' }, measure: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (values.measure) {
    measure(values.measure).then((m) => {
      mkdirSync(dirname(measurementPath(values.measure!)), { recursive: true });
      writeFileSync(measurementPath(values.measure!), `${JSON.stringify(m, null, 1)}\n`);
      console.log(`${measurementPath(values.measure!)}: ${m.steps.length} steps measured in ${m.rehearsal.wallSeconds} s; \`npm run s3ab -- aws estimate ${values.measure}\` prints the model`);
    }).catch((err) => failScript('cost:aws --measure', err));
  } else if (values.docs) {
    const path = join(__dirname, '..', ESTIMATE_PAGE);
    writeFileSync(path, withTable(readFileSync(path, 'utf8'), estimateTable()));
    console.log(`${ESTIMATE_PAGE}: the AWS estimate table is regenerated`);
  } else {
    console.log([
      'usage: npm run cost:aws -- --measure PROFILE   rehearse PROFILE here (seed: its sample) and write assets/measured/PROFILE.json',
      `       npm run cost:aws -- --docs              regenerate the AWS estimate table in ${ESTIMATE_PAGE}`,
      'The model itself: `npm run s3ab -- aws estimate PROFILE [--runners SPEC]`.',
    ].join('\n'));
  }
}

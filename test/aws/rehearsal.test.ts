import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RehearsalReport } from '../../scripts/rehearsal/rehearse';
import { ROOT } from '../helpers/cli';

/** A small matrix: two workloads, so layout "shard" gives each of two runners its own. */
const MATRIX = { name: 'rehearsal', repetitions: 1, methods: ['s3-api', 'aws-cli'], workloads: { 'small-reads': { files: 4, size: '64KiB' }, 'dir-walk': { objects: 20, size: '1KiB' } } };

/** `npm run rehearse` as a user runs it (its own process), its figures read from --json. */
function rehearse(args: string[]): { code: number | null; out: string; report: RehearsalReport } {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-rehearse-test-'));
  try {
    writeFileSync(join(dir, 'matrix.json'), JSON.stringify(MATRIX));
    const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'scripts', 'rehearse.ts'), '--matrix', join(dir, 'matrix.json'), '--runners', 'c7g.large:2', '--documents', '3', '--json', join(dir, 'r.json'), ...args],
      { cwd: ROOT, encoding: 'utf8', timeout: 200_000, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } });
    return { code: r.status, out: `${r.stdout}${r.stderr}`, report: JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a rehearsal of a whole execution: the synthesized state machine, the real functions, runner sandboxes running the documents\' own lines', () => {
  test('two runners, one workload each: success, a report, every step\'s records, and nothing of the run left behind', () => {
    const { code, out, report: r } = rehearse([]);
    expect({ code, status: r.status, error: r.error }).toEqual({ code: 0, status: 'SUCCEEDED', error: null });
    expect(r.reportLocation).toMatch(/^s3:\/\/s3ab-rehearsal-results\/reports\/\d{8}T\d{6}Z-[0-9a-f]{6}\/report\.html$/);
    // One setup and one run-step command per runner; each runner ran its own two steps.
    expect(r.commands.filter((c) => c.document === 'run-step').map((c) => [c.status, c.steps])).toEqual([['Success', 2], ['Success', 2]]);
    expect(r.commands.filter((c) => c.document === 'setup').every((c) => c.status === 'Success')).toBe(true);
    // Every state within a third of its timeout.
    for (const s of r.states) if (s.timeoutS) expect(s.longestMs / 1000).toBeLessThanOrEqual(s.timeoutS / 3);
    expect(r.s3.versionsCreated).toBeGreaterThan(0);
    expect(r.s3.versionsDeleted).toBeGreaterThanOrEqual(r.s3.versionsCreated);
    expect(r.leftovers).toEqual({ runnerProcesses: 0, mounts: 0, versions: 0, sandboxes: 0 });
    // The printed figures.
    expect(out).toMatch(/history events \(as Step Functions counts them\): \d+ of the 25,000/);
    expect(out).toMatch(/status: SUCCEEDED; report: s3:\/\//);
  }, 240_000);

  test('a runner\'s command that fails mid-steps: the execution fails naming it, exit 1, and still nothing is left behind', () => {
    const { code, report: r } = rehearse(['--fail', 'run-step']);
    expect(code).toBe(1);
    expect(r.status).toBe('FAILED');
    expect(r.error).toEqual({ name: 'CommandFailed', message: expect.stringMatching(/injected failure in run-step/) });
    expect(r.reportLocation).toBeNull();
    expect(r.leftovers).toEqual({ runnerProcesses: 0, mounts: 0, versions: 0, sandboxes: 0 });
  }, 240_000);
});

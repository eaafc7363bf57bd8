import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MOUNTS_PROFILE_METHODS, writeReportFixture } from '../../scripts/fixtures/report-fixture';
import type { Advice } from '../../runner/report/advice';
import { NEED_NAMES } from '../../runner/report/advice-needs';
import { s3ab } from '../helpers/cli';

/**
 * `s3ab advise` as a user runs it, on a results folder of the mounts profile's methods (the
 * rendering fixture: synthetic figures, real records through the runner's writer and the report's
 * loader and SQL): Mountpoint refuses rename and append there, so those needs rule it out, naming
 * the probes; the rest are compared per case. Bad input exits 2 with the valid choices.
 */

const RUN_ID = '20260115T101500Z-ad71c5';

describe('s3ab advise', () => {
  let dir: string;
  let results: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-advise-'));
    results = join(dir, 'results');
    await writeReportFixture(results, { repetitions: 3, runId: RUN_ID, profile: 'mounts' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('--needs rename,append rules out Mountpoint, naming the probes, and prints the Pareto set of the rest', async () => {
    const r = await s3ab(['advise', '--results', results, '--workload', 'tar-extract', '--needs', 'rename,append']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ruledOut = r.stdout.split('\n').filter((l) => l.startsWith('  mountpoint: '));
    expect(ruledOut).toHaveLength(1);
    for (const probe of ['rename-file unsupported', 'rename-dir unsupported', 'append unsupported']) expect(ruledOut[0]).toContain(probe);
    expect(r.stdout).toContain('Pareto set');
    expect(r.stdout).toContain(`evidence: run ${RUN_ID}, 3 repetitions, host class`);
    const pareto = r.stdout.slice(r.stdout.indexOf('Pareto set'));
    expect(pareto).not.toMatch(/^ {4}mountpoint:/m);
  });

  test('--format json: the same advice as one document; every compared method met the needs', async () => {
    const r = await s3ab(['advise', '--results', results, '--run', RUN_ID, '--workload', 'tar-extract', '--needs', 'rename,append', '--format', 'json']);
    expect(r.code).toBe(0);
    const advice = JSON.parse(r.stdout) as Advice;
    expect(advice.runId).toBe(RUN_ID);
    expect(advice.ruledOut.map((m) => m.method)).toEqual(['mountpoint']);
    expect(advice.ruledOut[0].verdicts.map((v) => `${v.need}/${v.probe}`)).toEqual(['rename/rename-file', 'rename/rename-dir', 'append/append']);
    const refusing = new Set(MOUNTS_PROFILE_METHODS.filter((m) => m.refuses.some((p) => ['rename-file', 'rename-dir', 'append'].includes(p))).map((m) => m.name));
    const extract = advice.cases.find((c) => c.operation === 'extract')!;
    expect(extract.compared.length).toBeGreaterThan(1);
    for (const c of extract.compared) expect(refusing.has(c.method.split(':')[0])).toBe(false);
    expect(extract.pareto.length).toBeGreaterThan(0);
    expect(extract.pareto.every((m) => extract.compared.some((c) => c.method === m))).toBe(true);
    // A pick, or "no clear winner", never both.
    expect(Number(extract.pick !== null) + Number(extract.noClearWinner !== null)).toBe(1);
  });

  test('--host-class other than the run\'s warns on every recommended method', async () => {
    const r = await s3ab(['advise', '--results', results, '--workload', 'large-read', '--host-class', 'm7i.48xlarge', '--format', 'json']);
    expect(r.code).toBe(0);
    const advice = JSON.parse(r.stdout) as Advice;
    const compared = advice.cases.flatMap((c) => c.compared);
    expect(compared.length).toBeGreaterThan(0);
    for (const c of compared) expect(c.evidence.warning).toMatch(/not on m7i\.48xlarge/);
  });

  test('an unknown need exits 2 listing the valid needs, without a stack trace', async () => {
    const r = await s3ab(['advise', '--results', results, '--workload', 'tar-extract', '--needs', 'rename,teleport']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"teleport" is not a need');
    expect(r.stderr).toContain(`use any of: ${NEED_NAMES.join(', ')}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('an unknown workload, the semantics probes themselves, or a missing --workload, exits 2', async () => {
    const unknown = await s3ab(['advise', '--results', results, '--workload', 'tar-xf']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"tar-xf" is not a workload');
    const probes = await s3ab(['advise', '--results', results, '--workload', 'semantics']);
    expect(probes.code).toBe(2);
    expect(probes.stderr).toContain('semantics is what --needs reads');
    const missing = await s3ab(['advise', '--results', results]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--workload');
  });

  test('--help lists every need with its probes', async () => {
    const r = await s3ab(['advise', '--help']);
    expect(r.code).toBe(0);
    for (const need of NEED_NAMES) expect(r.stdout).toMatch(new RegExp(`^  ${need} .*\\(probes: `, 'm'));
  });
});

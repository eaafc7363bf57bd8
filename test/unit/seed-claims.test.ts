import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cell, ReportModel } from '../../runner/report/model';
import { SEED_CLAIMS, checkClaims, type SeedClaim } from '../../runner/report/seed-claims';
import { claimsTable, withClaimsTable } from '../../runner/report/seed-claims-doc';
import { SECTIONS } from '../../runner/report/sections';
import { summaryLines } from '../../runner/report/text/summary';
import { renderHtmlReport } from '../../runner/report/html/render';
import { cell, modelOf } from '../helpers/model';

const ROOT = join(__dirname, '..', '..');
const ALL: SeedClaim[] = Object.values(SEED_CLAIMS).flat();
const claim = (id: string) => {
  const found = ALL.find((c) => c.id === id);
  if (!found) throw new Error(`no claim ${id}`);
  return found;
};

/** A mount's cell of a workload's operation, cold, measured in every repetition unless told. */
const mount = (method: string, workload: string, operation: string, over: Partial<Cell> = {}): Cell =>
  cell({ method, workload, operation, object_size_bytes: null, cache: 'cold', duration_ms_min: 900, duration_ms_median: 1000, duration_ms_max: 1100, ...over });
/** Refused in every repetition, as the runner records an unsupported operation. */
const refused = { repetitions: 0, distinct_repetitions: 0, unsupported: 3, ok: 0, failed: 30, duration_ms_median: null, first_error: 'Operation not permitted' };

/** A mounts-profile-like run of Mountpoint and the SDK: git clone refused, empty files all created, tar finished. */
function mountsRun(over: Cell[] = []): ReportModel {
  return modelOf([
    mount('mountpoint', 'git-clone', 'clone', refused),
    mount('mountpoint', 'metadata', 'empty-files', { ok: 20, ops: 20, ops_s_median: 50 }),
    mount('mountpoint', 'metadata', 'data-modifications', { ...refused, ops: 20 }),
    mount('mountpoint', 'metadata', 'single-file-append', { ...refused, ops: 20 }),
    mount('mountpoint', 'tar-extract', 'extract', { ops: 600, ok: 600, ops_s_median: 40, duration_ms_median: 5000 }),
    mount('mountpoint', 'tar-extract', 'permissions', refused),
    mount('mountpoint', 'dir-walk', 'walk', { duration_ms_median: 4000 }),
    mount('s3-api', 'dir-walk', 'walk', { cache: 'none', duration_ms_median: 500 }),
    ...over,
  ]);
}

describe('each verdict kind, on fixed model fixtures', () => {
  test('reproduced: git clone refused on Mountpoint, with what the run recorded', () => {
    expect(claim('mountpoint-git-clone-fails').check(mountsRun())).toEqual({ kind: 'reproduced', ours: 'refused in every repetition (3): Operation not permitted' });
    expect(claim('mountpoint-refuses-modifications').check(mountsRun())).toMatchObject({ kind: 'reproduced', ours: 'data-modifications: 0 of 20 (0%); single-file-append: 0 of 20 (0%)' });
  });

  test('contradicted, and by how much: every empty file created where the seed saw 2 of 100', () => {
    expect(claim('mountpoint-empty-files-mostly-fail').check(mountsRun())).toEqual({
      kind: 'contradicted', ours: '20 of 20 (100%)', by: '50 percentage points above the claimed 0%–50%',
    });
    const appends = mountsRun([mount('mountpoint', 'metadata', 'single-file-append', { ok: 5, ops: 20 })]);
    appends.cells = appends.cells.filter((c) => !(c.operation === 'single-file-append' && c.ok === 0));
    expect(claim('mountpoint-refuses-modifications').check(appends)).toEqual({
      kind: 'contradicted', ours: 'data-modifications: 0 of 20 (0%); single-file-append: 5 of 20 (25%)', by: '12.5 percentage points above the claimed 0%',
    });
  });

  test('which is faster: reproduced with our factor, contradicted when the order is reversed', () => {
    expect(claim('walk-s3-api-faster-than-mountpoint').check(mountsRun())).toEqual({ kind: 'reproduced', ours: 's3-api 8x faster than mountpoint' });
    const reversed = mountsRun();
    reversed.cells = reversed.cells.map((c) => (c.method === 's3-api' ? { ...c, duration_ms_median: 8000 } : c));
    expect(claim('walk-s3-api-faster-than-mountpoint').check(reversed)).toEqual({ kind: 'contradicted', ours: 'mountpoint 2x faster than s3-api', by: 'the order is reversed' });
  });

  test('different setup: a finished tar extraction is a rate of its own setup, both setups named', () => {
    const v = claim('mountpoint-tar-did-not-finish').check(mountsRun());
    expect(v).toEqual({
      kind: 'different-setup', ours: 'finished: 200 files in 5 s (40 files/s)', theirs: '0.578 files/s', ourSetup: 'a 2-vCPU host against versitygw (embedded, loopback)',
    });
  });

  test('reproduced: a tar extraction that ran out of its step\'s time, with what it reached', () => {
    const dnf = mount('mountpoint', 'tar-extract', 'extract', { repetitions: 0, distinct_repetitions: 0, did_not_finish: 3, dnf_budget_s: 600, dnf_done_share: 0.1, dnf_extrapolated_s: 6000, duration_ms_median: null });
    const run = modelOf([dnf]);
    expect(claim('mountpoint-tar-did-not-finish').check(run)).toEqual({ kind: 'reproduced', ours: 'did not finish in 10 min: 10% done, about 1.7 h extrapolated' });
  });

  test('not measured: ZeroFS needs an NFS client; a missing mount names the profiles that measure it', () => {
    for (const id of ['zerofs-every-test-succeeds', 'zerofs-git-clone-works', 'zerofs-tar-faster-than-mountpoint']) {
      expect(claim(id).check(mountsRun())).toMatchObject({ kind: 'not-measured', needs: expect.stringMatching(/^needs an NFS client/) });
    }
    expect(claim('mountpoint-git-clone-fails').check(modelOf([mount('s3fs', 'git-clone', 'clone')]))).toEqual({
      kind: 'not-measured', needs: 'needs git-clone on mountpoint: profiles seed, mounts, full',
    });
    expect(claim('efs-p95-like-objectivefs-cold').check(mountsRun())).toMatchObject({ kind: 'not-measured', needs: expect.stringMatching(/^needs AWS/) });
  });

  test('not measured: a method the run skipped says why it was skipped', () => {
    const run = mountsRun();
    run.skipped = [{ method: 's3files', variant: 'default', reason: 'S3 Files needs AWS', steps: 4 }] as ReportModel['skipped'];
    expect(claim('walk-s3files-faster-than-s3-api').check(run)).toEqual({ kind: 'not-measured', needs: 's3files was skipped: S3 Files needs AWS' });
  });

  test('requests per entry from the store\'s counts: a HEAD per stat reproduced, a handful for the whole walk contradicted', () => {
    const counted = (head: number) => ({ workload: 'dir-walk', operation: 'walk', method: 'mountpoint', method_variant: 'default', cache: 'cold', ops: 1000, not_counted: 0, head });
    const walk = [mount('mountpoint', 'dir-walk', 'walk')];
    expect(claim('walk-mountpoint-head-per-stat').check(modelOf(walk, { requests: [counted(1000)] }))).toEqual({ kind: 'reproduced', ours: '1,000 HEAD requests for 1,000 entries (1 per entry, cold)' });
    expect(claim('walk-mountpoint-head-per-stat').check(modelOf(walk, { requests: [counted(4)] }))).toEqual({
      kind: 'contradicted', ours: '4 HEAD requests for 1,000 entries (0.004 per entry, cold)', by: '250x fewer than one per entry',
    });
    expect(claim('walk-mountpoint-head-per-stat').check(modelOf(walk, { requests: [{ ...counted(0), not_counted: 1 }] }))).toMatchObject({ kind: 'not-measured' });
  });

  test('a ratio band: inside it reproduced, outside it contradicted by the factor', () => {
    const p95 = (method: string, us: number) => mount(method, 'web-serving', 'read', { p95_us_median: us });
    expect(claim('efs-p95-like-objectivefs-cold').check(modelOf([p95('efs', 81_000), p95('objectivefs', 80_000)]))).toEqual({ kind: 'reproduced', ours: 'efs 1.01x worse than objectivefs' });
    expect(claim('efs-p95-like-objectivefs-cold').check(modelOf([p95('efs', 81_000), p95('objectivefs', 27_000)]))).toEqual({
      kind: 'contradicted', ours: 'efs 3x worse than objectivefs', by: '2.4x below the band (0.8–1.25x)',
    });
  });
});

describe('the claims data', () => {
  test('claim ids are unique', () => {
    expect(new Set(ALL.map((c) => c.id)).size).toBe(ALL.length);
  });

  test('every profile a claim names runs its workload on each of its methods', () => {
    for (const c of ALL) {
      for (const name of c.measure.profiles) {
        const profile = JSON.parse(readFileSync(join(ROOT, 'assets', 'profiles', `${name}.json`), 'utf8')) as { methods: (string | { name: string; variant?: string })[]; workloads: Record<string, unknown> };
        const labels = profile.methods.map((m) => (typeof m === 'string' ? m : m.variant ? `${m.name}:${m.variant}` : m.name));
        expect({ claim: c.id, profile: name, workload: c.measure.workload in profile.workloads }).toEqual({ claim: c.id, profile: name, workload: true });
        for (const method of c.measure.methods) expect({ claim: c.id, profile: name, method, listed: labels.includes(method) }).toEqual({ claim: c.id, profile: name, method, listed: true });
      }
    }
  });

  test('docs/seeds.md\'s claims table is generated from the data and current (`npm run gen` writes it)', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'seeds.md'), 'utf8');
    expect(withClaimsTable(doc, claimsTable())).toBe(doc);
    for (const c of ALL) expect(doc).toContain(c.statement.replace(/\|/g, '\\|'));
  });
});

describe('the "Seed claims" section', () => {
  const section = SECTIONS.find((s) => s.id === 'seed-claims')!;

  test('is in the list, with a text form and a json/csv table of every claim', () => {
    expect(section.title).toBe('Seed claims');
    const [t] = section.tables!(mountsRun());
    expect(t.name).toBe('seed_claims');
    expect(t.rows).toHaveLength(ALL.length);
  });

  test('the text summary shows the verdicts, ZeroFS\'s as not measured for want of an NFS client, in 100 columns', () => {
    const lines = summaryLines(mountsRun());
    const at = lines.findIndex((l) => l.startsWith('Seed claims'));
    expect(at).toBeGreaterThan(0);
    const text = lines.slice(at).join('\n');
    expect(text).toMatch(/reproduced/);
    expect(text).toMatch(/contradicted/);
    expect(text).toMatch(/needs an NFS client/);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    expect(checkClaims(mountsRun()).filter((c) => c.claim.measure.methods.includes('zerofs')).map((c) => c.verdict.kind)).toEqual(['not-measured', 'not-measured', 'not-measured', 'not-measured']);
  });

  test('the page has the section, a table per seed with its setup, and says "No data" when nothing was measured', async () => {
    const page = (await renderHtmlReport(mountsRun())).html;
    expect(page).toContain('id="seed-claims"');
    expect(page).toContain('Published on a 48-vCPU Azure D48lds v6 VM in West Europe against Cloudflare R2');
    expect(page).toMatch(/class="supported">reproduced</);
    expect(section.hasData(modelOf([cell({})]))).toBe(false);
    expect(await section.html!({ model: modelOf([cell({})]) } as never)).toContain('No data:');
  });
});

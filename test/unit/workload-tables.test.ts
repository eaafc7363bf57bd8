import { printMetadata, printRealWorld, printUntar } from '../../runner/report/workload-tables';

/** Rows in the shape assets/queries/real_world_jobs.sql and metadata_suite.sql return them. */
const extract = (method: string, seconds: number, mbS: number, extra: object = {}) => ({
  workload: 'tar-extract', operation: 'extract', method, method_variant: 'default', cache: 'cold', repetitions: 3, succeeded: 3, unsupported: 0,
  files: 4280, duration_ms_median: seconds * 1000, files_s_median: 4280 / seconds, mb_s_median: mbS, kept_rate: 1, first_error: null, ...extra,
});
const printed = (f: (out: (l: string) => void) => void) => {
  let text = '';
  f((l) => (text += `${l}\n`));
  return text;
};

describe('seed 004\'s untar table', () => {
  test('prints per file system the time, write throughput and improvement over the first, in its own table', () => {
    const rows = [extract('s3fs', 2283, 0.3), extract('mountpoint', 33, 20.7)];
    const text = printed((out) => printUntar(rows, out));
    expect(text).toContain('untar (seed 004) — tar -xf of 4,280 files');
    expect(text).toMatch(/file system\s+│?\s*time\s+│?\s*write throughput\s+│?\s*improvement/);
    expect(text).toMatch(/s3fs\s.*38 min 3 s.*0\.3 MB\/s.*1x/);
    expect(text).toMatch(/mountpoint\s.*33(\.0)? s.*20\.7 MB\/s.*69x/);
    expect(text).toContain('"improvement": write throughput over the first file system that succeeded (s3fs)');
    // Seed 002's real-world table keeps the time only: the throughput is in seed 004's table.
    expect(printed((out) => printRealWorld(rows, out))).not.toContain('write throughput');
  });

  test('a failed or refused extraction says so; one file system alone has no improvement column', () => {
    const text = printed((out) => printUntar([extract('mountpoint', 0, 0, { succeeded: 0, unsupported: 3, first_error: 'Operation not permitted' })], out));
    expect(text).toContain('not supported (Operation not permitted)');
    expect(text).not.toContain('improvement');
  });

  test('nothing is printed without tar rows', () => {
    expect(printed((out) => printUntar([{ ...extract('s3fs', 1, 1), workload: 'git-clone', operation: 'clone' }], out))).toBe('');
  });
});

describe('seed 002\'s metadata table', () => {
  const row = (method: string) => ({
    test: 'sequential-writes', method, method_variant: 'default', cache: 'cold', ops_per_repetition: 100, ops_s_median: 500, mean_us_median: 2000,
    p50_us_median: 1900, p95_us_median: 3000, p99_us_median: 4000, success_rate: 1, ok: 100, attempted: 100, unsupported_repetitions: 0, unverified_repetitions: 0,
  });

  test('the "difference" column and its footnote appear only when two methods are compared', () => {
    const one = printed((out) => printMetadata([row('s3fs')], out));
    expect(one).not.toContain('difference');
    const two = printed((out) => printMetadata([row('s3fs'), row('mountpoint')], out));
    expect(two).toContain('"difference": the first method over the second');
  });
});

import type { SeedId } from '../core/workload';
import { measured } from './analysis';
import {
  cellOf, cellsOf, failsOn, failureText, fasterThan, notMeasured, ourSetup, ratioWithin, successBetween, worksOn,
  type ClaimMeasure, type ClaimVerdict,
} from './claim-checks';
import { durationText, num } from './format';
import type { ReportModel } from './model';

/**
 * The seeds' headline claims as data: per seed, each claim in our words, the figure and setup it
 * was published with, what measures it here, and its check: a function of the report model that
 * says reproduced, contradicted, different setup or not measured (claim-checks.ts). The report's
 * "Seed claims" section and docs/seeds.md's claims table (`npm run gen`) are both written from it.
 * Claims are put in scale-free form where they can be (works or fails, a success rate, which is
 * faster, a ratio band); a figure that only holds on its setup is shown beside ours as "different
 * setup".
 */

/** How a claim is put: the scale-free forms first, then a figure that depends on its setup. */
type ClaimForm = 'works or fails' | 'success rate' | 'which is faster' | 'ratio band' | 'setup-bound figure';

export interface SeedClaim {
  /** Unique among all seeds' claims. */
  id: string;
  /** What the seed found, in our words. */
  statement: string;
  /** The figure as published, on the seed's setup. */
  published: string;
  form: ClaimForm;
  measure: ClaimMeasure;
  check(model: ReportModel): ClaimVerdict;
}

/** Where each seed measured: named beside a figure that depends on it. */
export const SEED_SETUPS: Record<SeedId, string> = {
  '000-cli-vs-s3fs-vs-s3files-benchmark': 'a t3.micro (2 vCPU, 1 GiB) in eu-south-2 against S3',
  '001-s3files-lambda-before-after-and-ec2-three-way': 'a c7g.large and 512 MB arm64 Lambda functions in us-east-1 against S3',
  '002-zerofs-vs-mountpoint-benchmarks': 'a 48-vCPU Azure D48lds v6 VM in West Europe against Cloudflare R2, 100 operations per test',
  '003-s3fs-tuning-ibm-cos': 'a bare-metal machine with a 10 Gbit/s card against IBM Cloud Object Storage',
  '004-efs-vs-objectivefs-small-files': 'an r3.xlarge in us-east-1 against EFS and S3',
};

const MOUNT_PROFILES = ['seed', 'mounts', 'full'] as const;
/** The synthetic tests of seed 002's table (its suite's other tests were not published). */
const SEED_002_TESTS = ['sequential-writes', 'data-modifications', 'single-file-append', 'empty-files', 'empty-directories', 'random-reads'];

/** Seed 002's tar extraction on Mountpoint: 432 of 4,280 files in 12 min 27 s. */
const SEED_002_TAR_FILES_S = 432 / (12 * 60 + 27);

/**
 * tar -xf on Mountpoint: running out of the step's time is the seed's finding; a finished
 * extraction has a rate, which depends on the setup.
 */
function tarOnMountpoint(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const c = cellOf(model, m, 0);
  if (!c) return notMeasured(model, m);
  if (c.did_not_finish && !measured(c)) {
    const extrapolated = c.dnf_extrapolated_s !== null ? `, about ${durationText(c.dnf_extrapolated_s * 1000)} extrapolated` : '';
    return { kind: 'reproduced', ours: `${failureText(c)}${extrapolated}` };
  }
  if (!measured(c)) return { kind: 'contradicted', ours: failureText(c), by: 'it failed rather than ran slowly' };
  const files = c.ops / Math.max(1, c.records);
  const rate = c.ops_s_median ?? (c.duration_ms_median ? files / (c.duration_ms_median / 1000) : null);
  return {
    kind: 'different-setup', ours: `finished: ${num(files)} files in ${durationText(c.duration_ms_median)} (${num(rate)} files/s)`,
    theirs: `${num(SEED_002_TAR_FILES_S)} files/s`, ourSetup: ourSetup(model),
  };
}

/**
 * s3fs reading faster than the link: its cache served the reads (seed 000 saw 1.2–1.6 GB/s on a
 * t3.micro, direct I/O notwithstanding). The run's own cache-served flag decides.
 */
function s3fsReadsFromCache(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const cells = m.operations.flatMap((op) => cellsOf(model, m.workload, op, m.methods[0])).filter(measured);
  if (!cells.length) return notMeasured(model, m);
  const limit = model.link?.limitMibS ?? null;
  if (limit === null) return { kind: 'not-measured', needs: 'needs a known link limit to tell a cache from the network (the run recorded none)' };
  const fastest = Math.max(...cells.map((c) => c.mib_s_max ?? c.mib_s_median ?? 0));
  const above = cells.filter((c) => c.served_from_cache > 0);
  if (above.length) return { kind: 'reproduced', ours: `${above.length} of ${cells.length} read cases above the link limit of ${num(limit)} MiB/s (fastest ${num(fastest)} MiB/s)` };
  return { kind: 'contradicted', ours: `no read above the link limit of ${num(limit)} MiB/s (fastest ${num(fastest)} MiB/s)`, by: `${num(limit / Math.max(fastest, 1e-9))}x below the link limit at best` };
}

/** The AWS CLI's time for a batch of downloads against size: within 1.5x from the smallest size to 10 MB. */
function cliTimeFlat(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const cells = cellsOf(model, m.workload, m.operations[0], m.methods[0])
    .filter((c) => measured(c) && c.object_size_bytes !== null && c.object_size_bytes <= 10 * 1024 ** 2 && c.duration_ms_median);
  const sizes = [...new Set(cells.map((c) => c.object_size_bytes))];
  if (sizes.length < 2) return cells.length ? { kind: 'not-measured', needs: 'needs objects download on aws-cli at two sizes up to 10 MB: profiles seed, full' } : notMeasured(model, m);
  const bySize = [...cells].sort((a, b) => a.object_size_bytes! - b.object_size_bytes!);
  const [small, large] = [bySize[0], bySize[bySize.length - 1]];
  const factor = large.duration_ms_median! / small.duration_ms_median!;
  const ours = `${durationText(small.duration_ms_median)} at the smallest size, ${durationText(large.duration_ms_median)} at the largest up to 10 MB (${num(factor)}x)`;
  return factor <= 1.5 ? { kind: 'reproduced', ours } : { kind: 'contradicted', ours, by: `${num(factor / 1.5)}x above the 1.5x band` };
}

/** One s3fs reader's throughput against the file's size: higher at the largest size than at the smallest. */
function growsWithSize(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const cells = cellsOf(model, m.workload, m.operations[0], m.methods[0]).filter((c) => measured(c) && c.cache !== 'warm' && c.mib_s_median && c.object_size_bytes !== null);
  if (new Set(cells.map((c) => c.object_size_bytes)).size < 2) return notMeasured(model, m);
  const bySize = [...cells].sort((a, b) => a.object_size_bytes! - b.object_size_bytes!);
  const [small, large] = [bySize[0], bySize[bySize.length - 1]];
  const factor = large.mib_s_median! / small.mib_s_median!;
  const ours = `${num(small.mib_s_median)} MiB/s at the smallest size, ${num(large.mib_s_median)} MiB/s at the largest (${num(factor)}x)`;
  return factor > 1 ? { kind: 'reproduced', ours } : { kind: 'contradicted', ours, by: 'no faster at the largest size' };
}

/**
 * HEAD requests per entry of a walk on the method, as the store counted them (request_counts.sql):
 * the seed explains Mountpoint's slow walk by a HeadObject request per stat().
 */
function headPerStat(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const c = cellOf(model, m, 0);
  if (!c) return notMeasured(model, m);
  const row = model.requests.find((r) => r.workload === m.workload && r.operation === m.operations[0] && r.method === c.method && r.method_variant === c.method_variant && r.cache === c.cache);
  if (!row || Number(row.not_counted) > 0 || !Number(row.ops)) return { kind: 'not-measured', needs: 'needs the store\'s request counts of the walk (the embedded endpoint keeps them; on AWS, s3ab aws query requests)' };
  const perEntry = Number(row.head) / Number(row.ops);
  const ours = `${num(Number(row.head))} HEAD requests for ${num(Number(row.ops))} entries (${num(perEntry)} per entry, ${c.cache})`;
  return perEntry >= 0.9 ? { kind: 'reproduced', ours } : { kind: 'contradicted', ours, by: `${perEntry > 0 ? `${num(1 / perEntry)}x fewer than` : 'none, against'} one per entry` };
}

const measure = (workload: string, operations: string[], methods: string[], profiles: readonly string[] = MOUNT_PROFILES, over: Partial<ClaimMeasure> = {}): ClaimMeasure =>
  ({ workload, operations, methods, profiles, ...over });

/** Each seed's claims, checked in this order. */
export const SEED_CLAIMS: Record<SeedId, readonly SeedClaim[]> = {
  '000-cli-vs-s3fs-vs-s3files-benchmark': [
    {
      id: 'cli-time-flat-in-size', form: 'ratio band',
      statement: 'The AWS CLI\'s time for a batch of downloads barely grows with the file size up to 10 MB: starting a process per file costs more than moving its bytes',
      published: '10 downloads in 0.82–0.88 s from 1 KB to 10 MB (1.5 s at 100 MB)',
      measure: measure('objects', ['download'], ['aws-cli'], ['quick', 'seed', 'full']),
      check(model) { return cliTimeFlat(model, this.measure); },
    },
    {
      id: 's3fs-reads-from-its-cache', form: 'works or fails',
      statement: 's3fs with seed 000\'s options reads faster than the network carries: its own cache serves the reads, direct I/O notwithstanding',
      published: '1.2–1.6 GB/s from 100 KB up, above what the instance\'s network carries',
      measure: measure('fio-seq', ['read (direct)'], ['s3fs:seed-000']),
      check(model) { return s3fsReadsFromCache(model, this.measure); },
    },
    {
      id: 's3fs-writes-faster-than-s3files', form: 'which is faster',
      statement: 's3fs writes small files faster than S3 Files; the gap narrows as files grow',
      published: 'write latency 108x lower on s3fs at 1 KB, 4.7x at 100 MB',
      measure: measure('fio-seq', ['write (direct)'], ['s3fs:seed-000', 's3files']),
      check(model) { return fasterThan(model, this.measure, 'mib_s_median'); },
    },
  ],
  '001-s3files-lambda-before-after-and-ec2-three-way': [
    {
      id: 'lambda-faster-after-s3files', form: 'which is faster',
      statement: 'The document-processing function runs faster on an S3 Files mount than through the S3 API',
      published: '664 ms against 3,394 ms inside the function (5.1x)',
      measure: measure('document-processing', ['total'], ['s3-files:lambda', 's3-api:lambda'], [], { needs: 'needs AWS: the stack\'s before and after document functions run it (s3ab aws run)' }),
      check(model) { return fasterThan(model, this.measure, 'duration_ms_median'); },
    },
    {
      id: 'walk-s3-api-faster-than-mountpoint', form: 'which is faster',
      statement: 'Walking a directory tree (list and stat each entry) is faster through the S3 API than on Mountpoint',
      published: '10,000 entries: 1,666 ms against 175,847 ms (106x)',
      measure: measure('dir-walk', ['walk'], ['s3-api', 'mountpoint']),
      check(model) { return fasterThan(model, this.measure, 'duration_ms_median'); },
    },
    {
      id: 'walk-mountpoint-head-per-stat', form: 'ratio band',
      statement: 'Mountpoint keeps no metadata cache while walking: each stat is a HeadObject request to the store',
      published: 'one HeadObject per stat(), the seed\'s explanation of the 176 s walk',
      measure: measure('dir-walk', ['walk'], ['mountpoint']),
      check(model) { return headPerStat(model, this.measure); },
    },
    {
      id: 'walk-s3files-faster-than-s3-api', form: 'which is faster',
      statement: 'S3 Files walks the same tree faster than the S3 API',
      published: '10,000 entries: 905 ms against 1,666 ms',
      measure: measure('dir-walk', ['walk'], ['s3files', 's3-api']),
      check(model) { return fasterThan(model, this.measure, 'duration_ms_median'); },
    },
    {
      id: 'large-read-mountpoint-faster-than-one-stream', form: 'which is faster',
      statement: 'Mountpoint reads large files faster than one GetObject stream per file',
      published: '5 x 1 GiB: 459 MiB/s against 43 MiB/s (10.7x)',
      measure: measure('large-read', ['read'], ['mountpoint', 's3-api:single-stream'], ['full']),
      check(model) { return fasterThan(model, this.measure, 'mib_s_median'); },
    },
    {
      id: 'digest-write-s3files-faster-than-mountpoint', form: 'which is faster',
      statement: 'Writing the small digests back is faster on S3 Files than on Mountpoint',
      published: 'five digests: 71 ms against 1,469 ms',
      measure: measure('large-read', ['write-digest'], ['s3files', 'mountpoint']),
      check(model) { return fasterThan(model, this.measure, 'duration_ms_median'); },
    },
  ],
  '002-zerofs-vs-mountpoint-benchmarks': [
    {
      id: 'mountpoint-git-clone-fails', form: 'works or fails',
      statement: '`git clone` fails on Mountpoint: git rewrites files it has just written (its configuration, HEAD), which Mountpoint refuses',
      published: 'failed',
      measure: measure('git-clone', ['clone'], ['mountpoint']),
      check(model) { return failsOn(model, this.measure); },
    },
    {
      id: 'mountpoint-refuses-modifications', form: 'success rate',
      statement: 'Mountpoint refuses to modify an existing file or append to one',
      published: '0% of modifications and appends succeeded',
      measure: measure('metadata', ['data-modifications', 'single-file-append'], ['mountpoint']),
      check(model) { return successBetween(model, this.measure, 0, 0); },
    },
    {
      id: 'mountpoint-empty-files-mostly-fail', form: 'success rate',
      statement: 'Most empty-file creations fail on Mountpoint',
      published: '2 of 100 succeeded (2%)',
      measure: measure('metadata', ['empty-files'], ['mountpoint']),
      check(model) { return successBetween(model, this.measure, 0, 0.5); },
    },
    {
      id: 'mountpoint-new-files-and-reads-succeed', form: 'success rate',
      statement: 'Writing new files, creating directories and random reads all succeed on Mountpoint, if slowly',
      published: '100% each, at 0.70, 2.08 and 3.2 operations/s',
      measure: measure('metadata', ['sequential-writes', 'empty-directories', 'random-reads'], ['mountpoint']),
      check(model) { return successBetween(model, this.measure, 1, 1); },
    },
    {
      id: 'mountpoint-tar-did-not-finish', form: 'setup-bound figure',
      statement: 'Extracting a source archive with tar on Mountpoint is pathologically slow: the seed stopped it at 10%',
      published: '432 of 4,280 files in 12 min 27 s, about 2 h extrapolated',
      measure: measure('tar-extract', ['extract'], ['mountpoint']),
      check(model) { return tarOnMountpoint(model, this.measure); },
    },
    {
      id: 'mountpoint-tar-permissions-not-kept', form: 'works or fails',
      statement: 'tar cannot set the files\' permissions on Mountpoint',
      published: 'permission operations not fully supported',
      measure: measure('tar-extract', ['permissions'], ['mountpoint']),
      check(model) { return failsOn(model, this.measure); },
    },
    {
      id: 'zerofs-every-test-succeeds', form: 'success rate',
      statement: 'ZeroFS completes every synthetic test',
      published: '100% in each, 664–1,001 operations/s',
      measure: measure('metadata', SEED_002_TESTS, ['zerofs'], ['subjects']),
      check(model) { return successBetween(model, this.measure, 1, 1); },
    },
    {
      id: 'zerofs-writes-faster-than-mountpoint', form: 'which is faster',
      statement: 'ZeroFS writes new files far faster than Mountpoint',
      published: '663.87 against 0.70 sequential writes/s (948x)',
      measure: measure('metadata', ['sequential-writes'], ['zerofs', 'mountpoint'], ['subjects']),
      check(model) { return fasterThan(model, this.measure, 'ops_s_median'); },
    },
    {
      id: 'zerofs-git-clone-works', form: 'works or fails',
      statement: '`git clone` works on ZeroFS',
      published: '3.1 s',
      measure: measure('git-clone', ['clone'], ['zerofs'], ['subjects']),
      check(model) { return worksOn(model, this.measure); },
    },
    {
      id: 'zerofs-tar-faster-than-mountpoint', form: 'which is faster',
      statement: 'tar extracts the archive far faster on ZeroFS than on Mountpoint',
      published: '13.5 s against about 2 h',
      measure: measure('tar-extract', ['extract'], ['zerofs', 'mountpoint'], ['subjects']),
      check(model) { return fasterThan(model, this.measure, 'duration_ms_median'); },
    },
  ],
  '003-s3fs-tuning-ibm-cos': [
    {
      id: 's3fs-single-reader-grows-with-size', form: 'which is faster',
      statement: 'One s3fs reader reads larger files faster: its throughput grows with the file\'s size',
      published: 'almost linear growth with the size, up to 540 MB/s',
      measure: measure('read-scaling', ['single-stream'], ['s3fs']),
      check(model) { return growsWithSize(model, this.measure); },
    },
    {
      id: 's3fs-concurrent-near-plain-http', form: 'ratio band',
      statement: 'Many concurrent s3fs readers come close to plain HTTP downloads of the same objects',
      published: '1,000 MB/s against 1,158 MB/s with Python\'s HTTP library (0.86x)',
      measure: measure('read-scaling', ['concurrent-16'], ['s3fs', 's3-api:single-stream'], ['full']),
      check(model) { return ratioWithin(model, this.measure, 'mib_s_median', 0.7, 1.25); },
    },
  ],
  '004-efs-vs-objectivefs-small-files': [
    {
      id: 'efs-p95-like-objectivefs-cold', form: 'ratio band',
      statement: 'On small random reads, EFS and ObjectiveFS with a cold cache have about the same 95th-percentile latency',
      published: 'p95 81 ms on EFS, 80 ms on ObjectiveFS cold',
      measure: measure('web-serving', ['read'], ['efs', 'objectivefs'], [], { caches: ['cold', 'cold'] }),
      check(model) { return ratioWithin(model, this.measure, 'p95_us_median', 0.8, 1.25); },
    },
    {
      id: 'objectivefs-warm-disk-beats-efs', form: 'ratio band',
      statement: 'With a warm disk cache, ObjectiveFS\'s 95th-percentile latency is an order of magnitude below EFS\'s',
      published: 'p95 6 ms against 81 ms (13x)',
      measure: measure('web-serving', ['read'], ['objectivefs:disk-cache', 'efs'], [], { caches: ['warm-disk', 'cold'] }),
      check(model) { return ratioWithin(model, this.measure, 'p95_us_median', 5, Infinity); },
    },
    {
      id: 'objectivefs-untar-faster-than-efs', form: 'which is faster',
      statement: 'Untarring a source tree is far faster on ObjectiveFS than on EFS',
      published: '33 s against 2,283 s (69x)',
      measure: measure('tar-extract', ['extract'], ['objectivefs', 'efs'], []),
      check(model) { return fasterThan(model, this.measure, 'duration_ms_median'); },
    },
  ],
};

/** A claim checked against a run: the claim, its seed and its verdict. */
export interface CheckedClaim {
  seed: SeedId;
  claim: SeedClaim;
  verdict: ClaimVerdict;
}

/** Every seed's claims checked against the run, in the seeds' order. */
export function checkClaims(model: ReportModel): CheckedClaim[] {
  return (Object.entries(SEED_CLAIMS) as [SeedId, readonly SeedClaim[]][])
    .flatMap(([seed, claims]) => claims.map((claim) => ({ seed, claim, verdict: claim.check(model) })));
}

/** "seed 002": a seed's short name. */
export const seedShort = (seed: SeedId): string => `seed ${seed.slice(0, 3)}`;

import { Prng } from './prng';

/**
 * Source-tree-shaped file sets, generated from a seed so every host builds the same one with no
 * download: a directory tree of `dirs` directories holding `files` files whose sizes follow a
 * log-normal distribution like a kernel source tree (seed 004: linux 4.7.2, ~54K files in 3,657
 * directories, 726 MB, every file below 2 MB; median a few KiB), scaled to `totalBytes`.
 * Modes (0644, 0755 for ~5% "scripts") and modification times (spread over two years from
 * 2016-08-20) vary so that an extraction that drops them is caught.
 * File contents are the runner's incompressible pattern (runner/core/data.ts) of a per-file seed.
 */
export interface TreeSpec {
  /** Names the tree; part of every file's data seed. */
  id: string;
  files: number;
  dirs: number;
  totalBytes: number;
  /** No file reaches this size (seed 004: 2 MB). */
  maxFileBytes: number;
}

export interface TreeFile {
  /** Path relative to the tree's root, '/'-separated. */
  path: string;
  size: number;
  mode: number;
  /** Whole seconds since the epoch. */
  mtimeSec: number;
  /** Seed of the file's content (patternBuffer(seed, size)). */
  seed: string;
}

export interface TreePlan {
  spec: TreeSpec;
  /** Directories relative to the root, parents before children. */
  dirs: string[];
  files: TreeFile[];
  totalBytes: number;
}

/** Times are spread over two years from here (whole seconds since the epoch). */
export const BASE_MTIME = Date.UTC(2016, 7, 20) / 1000;
/**
 * Owner of every archive entry: an ordinary user, as in upstream source tarballs, so that an
 * extraction as root that drops ownership (files left to root) is seen.
 */
export const TREE_OWNER = { uid: 1000, gid: 1000, uname: 'builder', gname: 'builder' };
const TWO_YEARS = 2 * 365 * 86400;
const EXTENSIONS = ['.c', '.c', '.c', '.h', '.h', '.S', '.txt', '.rst', '.py', '.sh', '.json', '.yaml'];
/** Median file size before scaling; the log-normal's sigma gives kernel-like spread (mean/median ≈ 2.7). */
const MEDIAN = 5000;
const SIGMA = 1.4;

/** Plans a tree (no I/O). The same spec gives the same plan everywhere. */
export function planTree(spec: TreeSpec): TreePlan {
  if (spec.files < 1 || spec.dirs < 1) throw new Error('a tree needs at least one file and one directory');
  const rng = new Prng(`tree/${spec.id}/${spec.files}/${spec.dirs}/${spec.totalBytes}`);
  // A random recursive tree: each directory hangs under an earlier one, giving kernel-like depth.
  const dirs: string[] = [''];
  for (let i = 1; i < spec.dirs; i++) {
    const parent = dirs[rng.below(dirs.length)];
    dirs.push(parent ? `${parent}/d${String(i).padStart(4, '0')}` : `d${String(i).padStart(4, '0')}`);
  }
  const raw: number[] = [];
  for (let i = 0; i < spec.files; i++) raw.push(MEDIAN * Math.exp(SIGMA * rng.normal()));
  const sizes = scaledSizes(raw, spec);
  const files: TreeFile[] = raw.map((_, i) => {
    const dir = dirs[rng.below(dirs.length)];
    const ext = EXTENSIONS[rng.below(EXTENSIONS.length)];
    const name = `f${String(i).padStart(5, '0')}${ext}`;
    const script = ext === '.sh' || ext === '.py' || rng.below(100) < 2;
    return {
      path: dir ? `${dir}/${name}` : name,
      size: sizes[i],
      mode: script ? 0o755 : 0o644,
      mtimeSec: BASE_MTIME + rng.below(TWO_YEARS),
      seed: `tree/${spec.id}/${i}`,
    };
  });
  return { spec, dirs: dirs.slice(1), files, totalBytes: files.reduce((a, f) => a + f.size, 0) };
}

/** Largest total a tree of `files` files, each smaller than `maxFileBytes`, can hold. */
export function treeCapacity(files: number, maxFileBytes: number): number {
  return files * Math.max(0, maxFileBytes - 1);
}

/**
 * Scales the raw sizes to `totalBytes` with no file reaching `maxFileBytes`: the files a plain
 * scaling would push past the cap are held at it and the rest scaled up again, until none is, so
 * the tree holds the total asked for (within rounding) whenever it can. (Plain scaling and a
 * clamp lost the excess: 10 files under 2 MB "of 100 MB" held 18 MB.)
 */
function scaledSizes(raw: number[], spec: TreeSpec): number[] {
  const cap = spec.maxFileBytes - 1;
  if (spec.totalBytes > treeCapacity(spec.files, spec.maxFileBytes)) {
    throw new Error(`${spec.files} files smaller than ${spec.maxFileBytes} bytes cannot hold ${spec.totalBytes} bytes`);
  }
  const capped = new Set<number>();
  for (;;) {
    const free = raw.reduce((a, r, i) => (capped.has(i) ? a : a + r), 0);
    const scale = free > 0 ? (spec.totalBytes - capped.size * cap) / free : 0;
    const newly = raw.flatMap((r, i) => (!capped.has(i) && Math.round(r * scale) > cap ? [i] : []));
    if (!newly.length) return raw.map((r, i) => (capped.has(i) ? cap : Math.max(0, Math.round(r * scale))));
    for (const i of newly) capped.add(i);
  }
}

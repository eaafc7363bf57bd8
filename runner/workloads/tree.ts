import { createWriteStream } from 'node:fs';
import { mkdir, utimes, writeFile, chmod } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';
import { pack as tarPack } from 'tar-stream';
import { patternBuffer } from '../core/data';
import { Prng } from '../core/prng';

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

const BASE_MTIME = Date.UTC(2016, 7, 20) / 1000;
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

export function fileContent(f: TreeFile): Buffer {
  return patternBuffer(f.seed, f.size);
}

/** CRC-32 of every file of a plan (what the readers check against). */
export function treeCrcs(plan: TreePlan): number[] {
  return plan.files.map((f) => crc32(fileContent(f)));
}

/** SHA-256 over every file's path, size and content: one digest for a whole tree. */
export function treeDigest(plan: TreePlan): string {
  const h = createHash('sha256');
  for (const f of plan.files) h.update(`${f.path}\0${f.size}\0`).update(fileContent(f));
  return h.digest('hex');
}

/** Writes the tree under `root` with its modes and times (used on local directories; untimed). */
export async function writeTree(plan: TreePlan, root: string, onProgress?: (done: number) => void): Promise<void> {
  for (const d of plan.dirs) await mkdir(join(root, d), { recursive: true });
  let done = 0;
  for (const f of plan.files) {
    const path = join(root, f.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, fileContent(f));
    await chmod(path, f.mode);
    await utimes(path, f.mtimeSec, f.mtimeSec);
    if (++done % 500 === 0) onProgress?.(done);
  }
}

/**
 * Writes the tree as an uncompressed tar archive (GNU tar reads it; entries in plan order, owner
 * TREE_OWNER, fixed times), so the same spec gives the same archive byte for byte.
 */
export async function writeTarball(plan: TreePlan, path: string, topDir: string): Promise<{ bytes: number }> {
  const pack = tarPack();
  const out = createWriteStream(path);
  const done = pipeline(pack, out);
  const dirTime = new Date(BASE_MTIME * 1000);
  const entry = (header: Parameters<typeof pack.entry>[0], body?: Buffer) => new Promise<void>((resolve, reject) => {
    pack.entry(header, body ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve()));
  });
  await entry({ name: `${topDir}/`, type: 'directory', mode: 0o755, mtime: dirTime, ...TREE_OWNER });
  for (const d of plan.dirs) {
    await entry({ name: `${topDir}/${d}/`, type: 'directory', mode: 0o755, mtime: dirTime, ...TREE_OWNER });
  }
  for (const f of plan.files) {
    await entry({ name: `${topDir}/${f.path}`, type: 'file', size: f.size, mode: f.mode, mtime: new Date(f.mtimeSec * 1000), ...TREE_OWNER }, fileContent(f));
  }
  pack.finalize();
  await done;
  return { bytes: out.bytesWritten };
}

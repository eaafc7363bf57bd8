import { createWriteStream } from 'node:fs';
import { mkdir, utimes, writeFile, chmod } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { pack as tarPack } from 'tar-stream';
import { patternBuffer } from '../../core/data';
import { BASE_MTIME, TREE_OWNER, type TreeFile, type TreePlan } from '../../core/tree-plan';

function fileContent(f: TreeFile): Buffer {
  return patternBuffer(f.seed, f.size);
}

/** CRC-32 of every file of a plan (what the readers check against). */
export function treeCrcs(plan: TreePlan): number[] {
  return plan.files.map((f) => crc32(fileContent(f)));
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

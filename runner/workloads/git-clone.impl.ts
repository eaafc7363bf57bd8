import { execFileSync } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Prng } from '../core/prng';
import { errorSummary } from '../core/errors';
import { openMeter } from '../core/meter';
import type { WorkloadDefinition } from '../core/workload';
import { gitCloneDescriptor, type GitCloneParams } from './git-clone';
import { LOST_OWN_PATH, fsMeasurement, fsRunContextOf, notMeasured, refusalCodeOf, type FsRunContext } from './kit/fs-common';
import { cachedInput, firstLine, runTool } from './kit/inputs';


/** The source repository: where it is and what a correct clone holds. */
export interface SourceRepo {
  path: string;
  head: string;
  files: number;
  /** Bytes of the checked-out files. */
  bytes: number;
}

/** git with no user or system configuration: the same behaviour on every host. */
function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH, HOME: home, LANG: 'C', LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 's3ab', GIT_AUTHOR_EMAIL: 's3ab@example.invalid', GIT_COMMITTER_NAME: 's3ab', GIT_COMMITTER_EMAIL: 's3ab@example.invalid',
  };
}

let gitVersionCache: string | null = null;
function gitVersion(): string {
  try {
    gitVersionCache ??= execFileSync('git', ['--version'], { encoding: 'utf8' }).trim().replace(/^git version /, '');
  } catch {
    gitVersionCache = 'not installed';
  }
  return gitVersionCache;
}

// A C-like vocabulary: the generated sources compress and delta like real code, which shapes the
// pack git transfers and the objects it writes.
const WORDS = ['static', 'int', 'void', 'struct', 'const', 'unsigned', 'long', 'return', 'if', 'else', 'for', 'while', 'break',
  'sizeof', 'NULL', 'buffer', 'length', 'offset', 'count', 'index', 'result', 'error', 'device', 'driver', 'inode', 'page',
  'lock', 'unlock', 'flags', 'state', 'request', 'queue', 'entry', 'list', 'node', 'table', 'value', 'data', 'size', 'ptr'];

function line(rng: Prng): string {
  const depth = rng.below(4);
  const n = 2 + rng.below(8);
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = WORDS[rng.below(WORDS.length)];
    words.push(rng.below(5) === 0 ? `${w}_${rng.below(1000)}` : w);
  }
  const end = [';', ' {', '', ');', ','][rng.below(5)];
  return `${'\t'.repeat(depth)}${words.join(' ')}${end}`;
}

function sourceFile(rng: Prng): string[] {
  // Log-normal line counts: median ~120 lines (~4 KiB), a long tail of big files.
  const lines = Math.max(3, Math.min(20_000, Math.round(120 * Math.exp(1.1 * rng.normal()))));
  return Array.from({ length: lines }, () => line(rng));
}

/**
 * The fast-import stream of a generated project: commit 1 imports 40% of the files; every later
 * commit adds its share of the rest, edits a few existing files (replaced and inserted lines) and
 * now and then deletes one (then re-adds it later), so the history has real deltas. Fixed author
 * dates make the commit ids the same on every host.
 */
export function historyStream(p: GitCloneParams): { stream: Buffer; files: number; bytes: number } {
  const rng = new Prng(`git-clone/${p.files}/${p.commits}`);
  const content = new Map<string, string[]>();
  const names = Array.from({ length: p.files }, (_, i) => `src/m${String(i % 37).padStart(2, '0')}/file${String(i).padStart(5, '0')}.${i % 5 === 0 ? 'h' : 'c'}`);
  const firstBatch = p.commits === 1 ? p.files : Math.ceil(p.files * 0.4);
  const perCommit = p.commits > 1 ? Math.ceil((p.files - firstBatch) / (p.commits - 1)) : 0;
  let added = 0;
  const parts: Buffer[] = [];
  const data = (text: string) => {
    const b = Buffer.from(text);
    parts.push(Buffer.from(`data ${b.length}\n`), b, Buffer.from('\n'));
  };
  const base = Date.UTC(2016, 0, 1) / 1000;
  for (let c = 0; c < p.commits; c++) {
    const changes: string[] = [];
    const want = c === 0 ? firstBatch : c === p.commits - 1 ? p.files - added : Math.min(perCommit, p.files - added);
    for (let k = 0; k < want; k++) {
      const name = names[added++];
      content.set(name, sourceFile(rng));
      changes.push(name);
    }
    if (c > 0) {
      const existing = [...content.keys()];
      const edits = Math.min(existing.length, 1 + rng.below(6));
      for (let e = 0; e < edits; e++) {
        const name = existing[rng.below(existing.length)];
        const lines = content.get(name)!;
        for (let r = 0; r < 1 + rng.below(5); r++) lines[rng.below(lines.length)] = line(rng);
        lines.splice(rng.below(lines.length), 0, ...Array.from({ length: rng.below(8) }, () => line(rng)));
        changes.push(name);
      }
    }
    const when = base + c * 3600 * 7;
    parts.push(Buffer.from(`commit refs/heads/main\nmark :${c + 1}\nauthor s3ab <s3ab@example.invalid> ${when} +0000\ncommitter s3ab <s3ab@example.invalid> ${when} +0000\n`));
    data(`change ${c + 1}: ${changes.length} files`);
    if (c > 0) parts.push(Buffer.from(`from :${c}\n`));
    for (const name of new Set(changes)) {
      parts.push(Buffer.from(`M ${name.endsWith('.h') ? '100644' : rng.below(40) === 0 ? '100755' : '100644'} inline ${name}\n`));
      data(`${content.get(name)!.join('\n')}\n`);
    }
    parts.push(Buffer.from('\n'));
  }
  const bytes = [...content.values()].reduce((n, lines) => n + Buffer.byteLength(`${lines.join('\n')}\n`), 0);
  return { stream: Buffer.concat(parts), files: content.size, bytes };
}

/** Builds (once per parameters, cached) the bare source repository. */
export async function sourceRepo(p: GitCloneParams, signal: AbortSignal): Promise<SourceRepo> {
  const { stream, files, bytes } = historyStream(p);
  // The name changes with the generator's output (bump the version), so an older cached one is not reused.
  const path = await cachedInput(`git-v1-${p.files}f-${p.commits}c.git`, async (dir) => {
    await mkdir(dir, { recursive: true });
    const env = gitEnv(dir);
    const run = async (args: string[], input?: Buffer) => {
      const r = await runTool('git', args, { cwd: dir, env, signal, input });
      if (r.code !== 0) throw new Error(`git ${args[0]} failed while building the source repository: ${firstLine(r.stderr) || `exit ${r.code}`}`);
      return r.stdout.trim();
    };
    await run(['init', '--quiet', '--bare', '--initial-branch=main', '.']);
    await run(['fast-import', '--quiet'], stream);
    await run(['gc', '--quiet', '--prune=now']);
  });
  const r = await runTool('git', ['rev-parse', 'refs/heads/main'], { cwd: path, env: gitEnv(path), signal });
  if (r.code !== 0) throw new Error(`the cached source repository ${path} is unreadable (${firstLine(r.stderr)}): delete it and run again`);
  return { path, head: r.stdout.trim(), files, bytes };
}

/**
 * Seed 002's `git clone`: clones the source repository through git's own transport (file://, as
 * a network clone: pack negotiated, written, indexed, then checked out) into a directory on the
 * file system under test, timed from spawn to exit. Then, untimed, checks the clone: HEAD is the
 * source's head, the index matches HEAD's tree, every checked-out file hashes to its blob, and the
 * object store passes `git fsck`.
 */
export async function runGitClone(fs: FsRunContext, repo: SourceRepo): Promise<void> {
  const dest = join(fs.root, 'git-clone');
  const home = join(fs.scratchDir, 'git-home');
  await mkdir(home, { recursive: true });
  const env = gitEnv(home);
  await rm(dest, { recursive: true, force: true }).catch(() => {});
  fs.progress(`git clone (${repo.files} files)`);
  // git --quiet reports nothing until it exits: a budget that runs out mid-clone finds none of it counted.
  const meter = openMeter('clone', null, repo.files, 'files');
  let clone;
  try {
    clone = await runTool('git', ['clone', '--quiet', '--no-hardlinks', `file://${repo.path}`, dest], { env, signal: fs.signal });
  } catch (err) {
    if (fs.signal.aborted) throw err;
    meter.end();
    fs.record(notMeasured('clone', null, `could not run git: ${errorSummary(err)}`, false));
    return;
  }
  if (fs.signal.aborted) return;
  meter.add(repo.files);
  const failed = clone.code !== 0;
  const problem = failed ? `git clone exited ${clone.code ?? clone.signal}: ${firstLine(clone.stderr)}` : await verifyClone(dest, repo, env, fs.signal);
  const refusal = failed ? refusalCodeOf(clone.stderr) ?? lostOwnPath(clone.stderr, dest) : null;
  const m = fsMeasurement(
    {
      ops: 1, ok: failed ? 0 : 1, failed: failed ? 1 : 0, bytes: failed ? 0 : repo.bytes, latenciesNs: failed ? [] : [clone.elapsedNs],
      durationNs: clone.elapsedNs, errors: failed ? { [refusal ?? 'ETOOL']: 1 } : {}, firstError: failed ? problem : null,
    },
    { operation: 'clone', objectSizeBytes: null, verified: !failed && problem === null, verifyProblem: problem, movesPayload: true },
  );
  if (fs.signal.aborted) return;
  meter.end();
  fs.record(m);
  await rm(dest, { recursive: true, force: true }).catch(() => {});
}

/**
 * LOST_OWN_PATH when git failed because a path it had just created inside the clone is gone (Mountpoint
 * keeps a new directory only locally, and which of git's steps hits that first varies from run to
 * run: "unable to write symref" with ENOSYS one time, ".git/: No such file or directory" the
 * next). That is the file system not keeping what git needs, a refusal like the others, not a
 * failed measurement. A missing path outside the clone stays a failure.
 */
export function lostOwnPath(stderr: string, dest: string): string | null {
  for (const line of stderr.split('\n')) {
    if (/No such file or directory/.test(line) && line.includes(`${dest}/`)) return LOST_OWN_PATH;
  }
  return null;
}

export async function verifyClone(dest: string, repo: SourceRepo, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<string | null> {
  const git = async (args: string[], input?: string) => runTool('git', args, { cwd: dest, env, signal, input });
  const head = await git(['rev-parse', 'HEAD']);
  if (head.stdout.trim() !== repo.head) return `the clone's HEAD is ${head.stdout.trim() || firstLine(head.stderr)}, expected ${repo.head}`;
  const index = await git(['diff-index', '--cached', '--quiet', 'HEAD']);
  if (index.code !== 0) return `the clone's index differs from HEAD (${firstLine(index.stderr) || 'git diff-index'})`;
  const listed = await git(['ls-files', '-s']);
  const entries = listed.stdout.trim().split('\n').filter(Boolean).map((l) => {
    const [meta, path] = l.split('\t');
    const [mode, sha] = meta.split(' ');
    return { mode, sha, path };
  });
  if (entries.length !== repo.files) return `the clone's index lists ${entries.length} files, expected ${repo.files}`;
  const hashed = await git(['hash-object', '--stdin-paths'], `${entries.map((e) => e.path).join('\n')}\n`);
  const shas = hashed.stdout.trim().split('\n');
  if (hashed.code !== 0 || shas.length !== entries.length) return `could not read back the checkout: ${firstLine(hashed.stderr)}`;
  const wrong = entries.filter((e, i) => shas[i] !== e.sha);
  if (wrong.length) return `${wrong.length} checked-out files differ from their committed content (first: ${wrong[0].path})`;
  for (const e of entries.filter((x) => x.mode === '100755')) {
    if (!((await stat(join(dest, e.path))).mode & 0o100)) return `${e.path} lost its executable bit`;
  }
  const fsck = await git(['fsck', '--no-progress', '--no-dangling']);
  if (fsck.code !== 0) return `git fsck found problems in the cloned objects: ${firstLine(fsck.stderr) || firstLine(fsck.stdout)}`;
  return null;
}

/**
 * Seed 002's `git clone` onto the mounted bucket, from a generated local repository with a real
 * history (built offline with git fast-import, cached). Needs a file system.
 */
export const gitClone: WorkloadDefinition<GitCloneParams> = {
  ...gitCloneDescriptor,
  describe: (p) => ({ ...gitCloneDescriptor.describe(p), git: gitVersion() }),
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    ctx.progress(`building the source repository (${ctx.params.files} files, ${ctx.params.commits} commits; cached)`);
    await runGitClone(fs, await sourceRepo(ctx.params, ctx.signal));
  },
};

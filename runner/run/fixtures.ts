import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { HashingStream, patternStream } from '../core/data';
import type { ResolvedMatrix } from '../core/matrix';
import type { FileSystemAccess } from '../core/method';
import type { Progress } from './progress';
import { formatDuration } from '../core/units';
import { fixtureDataPrefix } from '../core/vocabulary';
import { FIXTURE_WRITES, fixtureSeed, type Fixture } from '../core/workload';
import type { ReferenceStore } from '../endpoint/reference';
import { findWorkload } from '../workloads';

/** Writes every fixture the matrix's workloads read, once per run, through the reference client (untimed). */
export async function writeFixtures(matrix: Pick<ResolvedMatrix, 'workloads'>, reference: ReferenceStore, runPrefix: string, progress: Progress, signal: AbortSignal): Promise<Map<string, Fixture>> {
  const fixtures = new Map<string, Fixture>();
  for (const w of matrix.workloads) {
    const spec = findWorkload(w.name)!.fixture?.(w.params as never);
    if (!spec || fixtures.has(spec.id)) continue;
    if (signal.aborted) break;
    const started = Date.now();
    progress.log(`writing fixture ${spec.id} (${spec.count} objects)`);
    const fixture = await reference.writeFixture(spec, fixtureDataPrefix(runPrefix, spec.id), FIXTURE_WRITES.parallel, (done) => progress.note(`fixture ${done}/${spec.count}`));
    progress.log(`fixture ${spec.id} written in ${formatDuration(Date.now() - started)}`);
    fixtures.set(spec.id, fixture);
  }
  return fixtures;
}

/** Files written through a mount at once: enough to keep a client's uploads busy. */
const MOUNT_WRITERS = 8;

/**
 * For a method whose files are not objects (JuiceFS, EFS: no 'objects-in-bucket'): writes a
 * fixture's files through the method's own mount, untimed — the same bytes the S3 API wrote —
 * each checked against the fixture's digest, then remounts cold so that no measurement reads what
 * the writes left in a cache. Returns the time it took.
 */
export async function writeFixtureThroughMount(fs: FileSystemAccess, fixture: Fixture, signal: AbortSignal, note: (text: string) => void): Promise<number> {
  const started = Date.now();
  const { spec } = fixture;
  let next = 0;
  let done = 0;
  const writer = async () => {
    for (let i = next++; i < spec.count; i = next++) {
      if (signal.aborted) throw signal.reason;
      const path = fs.pathOf(fixture.prefix + spec.keyOf(i));
      await mkdir(dirname(path), { recursive: true });
      const hashing = new HashingStream();
      await pipeline(patternStream(fixtureSeed(spec, i), spec.sizeOf?.(i) ?? spec.size), hashing, createWriteStream(path), { signal });
      if (hashing.digest() !== fixture.digestOf(i)) throw new Error(`writing the fixture ${spec.id} through the mount: ${spec.keyOf(i)} does not match the fixture's digest`);
      if (++done % 100 === 0) note(`fixture through the mount ${done}/${spec.count}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MOUNT_WRITERS, spec.count) }, writer));
  note('remounting cold after writing the fixture');
  await fs.remount();
  return Date.now() - started;
}

import type { ResolvedMatrix } from '../core/matrix';
import type { Progress } from '../core/progress';
import { formatDuration } from '../core/units';
import { fixtureDataPrefix } from '../core/vocabulary';
import type { Fixture } from '../core/workload';
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
    const fixture = await reference.writeFixture(spec, fixtureDataPrefix(runPrefix, spec.id), 16, (done) => progress.note(`fixture ${done}/${spec.count}`));
    progress.log(`fixture ${spec.id} written in ${formatDuration(Date.now() - started)}`);
    fixtures.set(spec.id, fixture);
  }
  return fixtures;
}

import type { WorkloadDefinition } from '../core/workload';
import { WORKLOAD_DESCRIPTORS, type WorkloadName } from './catalog';
import { dirWalk } from './dir-walk.impl';
import { fioSeq } from './fio-seq.impl';
import { gitClone } from './git-clone.impl';
import { largeRead } from './large-read.impl';
import { metadata } from './metadata.impl';
import { objects } from './objects.impl';
import { readScaling } from './read-scaling.impl';
import { semantics } from './semantics.impl';
import { smallReads } from './small-reads.impl';
import { syncBehaviour } from './sync-behaviour.impl';
import { tarExtract } from './tar-extract.impl';
import { webServing } from './web-serving.impl';

/** Every workload's implementation, by the name in its descriptor: a workload missing here does not compile. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const IMPLEMENTATIONS: { readonly [K in WorkloadName]: WorkloadDefinition<any> } = {
  objects, 'dir-walk': dirWalk, 'large-read': largeRead, 'small-reads': smallReads, 'fio-seq': fioSeq, semantics,
  metadata, 'git-clone': gitClone, 'tar-extract': tarExtract, 'web-serving': webServing, 'read-scaling': readScaling,
  'sync-behaviour': syncBehaviour,
};

/** Every workload the runner can run, in the catalog's order (runner/workloads/catalog.ts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const WORKLOADS: readonly WorkloadDefinition<any>[] = WORKLOAD_DESCRIPTORS.map((d) => IMPLEMENTATIONS[d.name]);

export function findWorkload(name: string): WorkloadDefinition<unknown> | undefined {
  return WORKLOADS.find((w) => w.name === name);
}

import type { WorkloadDescriptor } from '../core/workload';
import { dirWalkDescriptor } from './dir-walk';
import { fioSeqDescriptor } from './fio-seq';
import { gitCloneDescriptor } from './git-clone';
import { largeReadDescriptor } from './large-read';
import { metadataDescriptor } from './metadata';
import { objectsDescriptor } from './objects';
import { readScalingDescriptor } from './read-scaling';
import { semanticsDescriptor } from './semantics';
import { smallReadsDescriptor } from './small-reads';
import { syncBehaviourDescriptor } from './sync-behaviour';
import { tarExtractDescriptor } from './tar-extract';
import { webServingDescriptor } from './web-serving';

/**
 * Every workload, as descriptors (parameters, requirements, operations, fixture), in the order
 * `s3ab list` shows them. The single source of the workload list: the implementations (index.ts)
 * are typed against it. To add a workload: write runner/workloads/NAME.ts (descriptor) and
 * NAME.impl.ts (measurement), list the descriptor here and the implementation in index.ts.
 */
export const WORKLOAD_DESCRIPTORS = [
  objectsDescriptor, dirWalkDescriptor, largeReadDescriptor, smallReadsDescriptor, fioSeqDescriptor, semanticsDescriptor,
  metadataDescriptor, gitCloneDescriptor, tarExtractDescriptor, webServingDescriptor, readScalingDescriptor,
  syncBehaviourDescriptor,
] as const;

// Each descriptor checks its own parameter type (satisfies WorkloadDescriptor<P>); the list holds them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const _typed: readonly WorkloadDescriptor<any>[] = WORKLOAD_DESCRIPTORS;
void _typed;

export type WorkloadName = (typeof WORKLOAD_DESCRIPTORS)[number]['name'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function findWorkloadDescriptor(name: string): WorkloadDescriptor<any> | undefined {
  return WORKLOAD_DESCRIPTORS.find((w) => w.name === name);
}

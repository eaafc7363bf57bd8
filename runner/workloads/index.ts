import type { WorkloadDefinition } from '../core/workload';
import { dirWalk } from './dir-walk';
import { fioSeq } from './fio-seq';
import { gitClone } from './git-clone';
import { largeRead } from './large-read';
import { metadata } from './metadata';
import { objects } from './objects';
import { readScaling } from './read-scaling';
import { semantics } from './semantics';
import { smallReads } from './small-reads';
import { tarExtract } from './tar-extract';
import { webServing } from './web-serving';

/**
 * Every workload the runner knows. To add one: write runner/workloads/NAME.ts exporting a
 * WorkloadDefinition and list it here; `s3ab list`, matrix validation and the report pick it up.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const WORKLOADS: readonly WorkloadDefinition<any>[] = [objects, dirWalk, largeRead, smallReads, fioSeq, semantics,
  metadata, gitClone, tarExtract, webServing, readScaling];

export function findWorkload(name: string): WorkloadDefinition<unknown> | undefined {
  return WORKLOADS.find((w) => w.name === name);
}

import type { MethodDescriptor } from '../core/method';
import { awsCliDescriptor } from './aws-cli';
import { efsDescriptor } from './efs';
import { juicefsDescriptor } from './juicefs';
import { mountpointDescriptor } from './mountpoint';
import { objectivefsDescriptor } from './objectivefs';
import { rcloneDescriptor } from './rclone';
import { s3ApiDescriptor } from './s3-api';
import { s3CrtDescriptor } from './s3-crt';
import { s3filesDescriptor } from './s3files';
import { s3fsDescriptor } from './s3fs';
import { zerofsDescriptor } from './zerofs';

/**
 * Every access method, as descriptors (pure data: name, kind, capabilities, variants), in the
 * order tables and reports list them. The single source of the method list and a method's only
 * registration: index.ts finds each entry's client in NAME.impl.ts. To add a method: write
 * runner/methods/NAME.ts (descriptor) and NAME.impl.ts (client), list the descriptor here, and give
 * assets/install.json its components and where it runs (`npm run gen` then lists it in docs/methods.md).
 */
export const METHOD_DESCRIPTORS = [
  s3ApiDescriptor, s3CrtDescriptor, awsCliDescriptor, s3fsDescriptor, mountpointDescriptor, rcloneDescriptor, juicefsDescriptor, zerofsDescriptor, objectivefsDescriptor, s3filesDescriptor, efsDescriptor,
] as const satisfies readonly MethodDescriptor[];

/**
 * Contestants of the seeds that no method measures yet, with why: `s3ab list` shows them, so a
 * reader sees they were not forgotten. A row moves to METHOD_DESCRIPTORS when it can be measured.
 */
export const UNMEASURED_CONTESTANTS: readonly { name: string; kind: 'object' | 'mount'; summary: string; why: string }[] = [];

export function findMethodDescriptor(name: string): MethodDescriptor | undefined {
  return METHOD_DESCRIPTORS.find((m) => m.name === name);
}

/** The method whose client sent this User-Agent, or null (the runner's own client, an unknown one). */
export function methodOfUserAgent(userAgent: string): MethodDescriptor | null {
  return METHOD_DESCRIPTORS.find((m: MethodDescriptor) => m.userAgent?.test(userAgent)) ?? null;
}

/** Position of a method in the catalog (unknown names last): the order tables list methods in. */
export function methodRank(name: string): number {
  const i = METHOD_DESCRIPTORS.findIndex((m) => m.name === name);
  return i < 0 ? METHOD_DESCRIPTORS.length : i;
}

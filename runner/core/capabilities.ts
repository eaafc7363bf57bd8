/**
 * What a method offers and a workload requires. A method declares its capabilities in its
 * descriptor (runner/methods/NAME.ts), a workload the ones it needs (runner/workloads/NAME.ts);
 * where a requirement is missing, the step records `not-applicable` with the reason below
 * instead of running, so a matrix can name every method and workload on every host.
 */
const CAPABILITIES = {
  'file-system': 'a mounted file system (plain POSIX paths)',
  'objects-in-bucket': 'its files stored in the bucket as one object per file (what the S3 API writes, it reads, and the other way round)',
} as const;

export type Capability = keyof typeof CAPABILITIES;

/** Why a workload cannot run on a method (null when it can): the first requirement the method lacks, in words. */
export function missingRequirement(
  method: { name: string; kind: 'object' | 'mount'; offers: readonly Capability[] },
  workload: { name: string; requires: readonly Capability[] },
): string | null {
  const missing = workload.requires.find((c) => !method.offers.includes(c));
  if (!missing) return null;
  const what = method.kind === 'object' ? 'an object method' : 'a mount method';
  if (missing === 'file-system') return `${workload.name} needs ${CAPABILITIES[missing]}; ${method.name} is ${what}`;
  return `${workload.name} needs ${CAPABILITIES[missing]}; ${method.name} does not keep its files that way`;
}

import type { MethodDescriptor } from '../core/method';

/**
 * ObjectiveFS (objectivefs.impl.ts), seed 004's subject: a commercial, log-structured file system
 * kept encrypted in the bucket, mounted with its own FUSE client (`mount.objectivefs`). Its files
 * are not objects, as with JuiceFS and ZeroFS: fixtures are written through its mount, and checks
 * that look at the bucket record not-applicable. A fresh file system per step, under the step's
 * volume name. It needs the vendor's package and a license: on AWS, the stack deployed with one
 * (docs/aws.md); elsewhere, `mount.objectivefs` and `S3AB_OBJECTIVEFS_LICENSE` (or the license in
 * the vendor's /etc/objectivefs.env). Not run on this project's machines.
 *
 * Options: an upper-case name is one of the vendor's environment settings (CACHESIZE,
 * DISKCACHE_SIZE); any other is a `-o` mount option (true = the flag, false = left out, else
 * name=value).
 */
export const objectivefsDescriptor = {
  name: 'objectivefs',
  kind: 'mount',
  userAgent: /objectivefs/i, // the vendor's own S3 client; its User-Agent is assumed to name it (never seen here)
  summary: 'ObjectiveFS (commercial, licensed): a log-structured, encrypted file system in the bucket, its own FUSE client; its files are not objects',
  offers: ['file-system'],
  variants: {
    // As seed 004 ran it: multithreaded, with the vendor's default memory cache (CACHESIZE unset)
    // and no disk cache (DISKCACHE_SIZE unset: the vendor enables it only when set).
    default: { mt: true },
    // Seed 004's second configuration: a disk cache on the local disk (the step's scratch folder).
    'disk-cache': { mt: true, DISKCACHE_SIZE: '10G' },
  },
} as const satisfies MethodDescriptor;

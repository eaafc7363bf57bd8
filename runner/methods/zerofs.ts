import type { MethodDescriptor } from '../core/method';
import { ZEROFS_NFS_OPTIONS } from '../core/nfs-options';

/**
 * ZeroFS (zerofs.impl.ts), seed 002's subject: a file system kept as an encrypted LSM tree (its
 * write-ahead log and sorted segments) under a prefix of the bucket, served over NFSv3 by its own
 * process. The kernel's NFS client mounts it, so it needs one (EC2 runners have it; a kernel with
 * FUSE only does not). Its files are not objects, as with JuiceFS: fixtures are written through its
 * mount, and checks that look at the bucket record not-applicable. A fresh file system per step,
 * under the step's volume name.
 *
 * Options: the NFS mount options (true = the flag, false = left out, else name=value), and
 * `cache_disk_size_gb` / `cache_memory_size_gb`, its configuration's [cache] sizes.
 */
export const zerofsDescriptor = {
  name: 'zerofs',
  kind: 'mount',
  userAgent: /^object_store\//, // ZeroFS's S3 client is the object_store crate with its default User-Agent
  summary: 'ZeroFS: its own NFSv3 server over an encrypted LSM tree in the bucket, mounted with the kernel NFS client; its files are not objects',
  offers: ['file-system'],
  variants: {
    // ZeroFS's documented NFS options and its generated configuration's cache sizes (`zerofs init`).
    default: { ...ZEROFS_NFS_OPTIONS, cache_disk_size_gb: 10, cache_memory_size_gb: 1 },
  },
} as const satisfies MethodDescriptor;

/**
 * Free page reporting, paused for a benchmark's duration.
 *
 * A VM with virtio-balloon free page reporting (Firecracker, QEMU) hands its free memory back to
 * the host in whole free blocks of 2 MiB and more. The next first touch of such a page faults on
 * the host, and the guest counts that time as system CPU of whichever thread touched it. A GET of
 * 1 GiB into a new file allocates 1 GiB of page cache: when that comes out of whole free blocks
 * instead of smaller free fragments, the writing thread's CPU for the GET doubles or triples, and
 * the GET is up to half as fast (docs/performance.md, "bench:transfer"). Which GET draws on those
 * blocks is chance, so the contestants of one round are not measured alike. S3's clients on EC2
 * do not meet this: it is this VM's host, not the access method.
 *
 * Pausing sets the reporting order above the largest page order, so that no free block qualifies,
 * and puts the old value back at the end (also on Ctrl-C). Memory reported before the pause stays
 * with the host until touched once; the bench's untimed warm-up round does that for the memory its
 * rounds go on to reuse.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { onCleanup, onEmergencyExit } from '../../runner/core/cleanup';

const PARAMETERS = '/sys/module/page_reporting/parameters';

export interface HostMemory {
  /** One line for the bench's header: what it found and did. */
  note: string;
  /** KiB the VM has handed to its host since the bench began (null where the kernel does not say). */
  reportedKiB(): number | null;
}

/** The largest page order this kernel's buddy allocator keeps, from /proc/buddyinfo's columns. */
function largestPageOrder(): number {
  const zone = readFileSync('/proc/buddyinfo', 'utf8').split('\n').find((l) => l.includes('zone'));
  return (zone?.replace(/^.*zone\s+\S+/, '').trim().split(/\s+/).length ?? 11) - 1;
}

const reportedSoFar = (): number | null => {
  const path = `${PARAMETERS}/reported_kib`;
  return existsSync(path) ? Number(readFileSync(path, 'utf8').trim()) : null;
};

/** Pauses free page reporting when this machine has it and may change it (root); says what it did. */
export function pauseFreePageReporting(pause: boolean): HostMemory {
  const orderFile = `${PARAMETERS}/page_reporting_order`;
  const start = reportedSoFar();
  const reportedKiB = () => { const now = reportedSoFar(); return now === null || start === null ? null : now - start; };
  if (!existsSync(orderFile)) return { note: 'host memory: this kernel does not report free pages to a host', reportedKiB };
  const before = readFileSync(orderFile, 'utf8').trim();
  if (!pause) return { note: `host memory: free page reporting left on (order ${before}): a round may be slowed by host faults on fresh page cache`, reportedKiB };
  const off = String(largestPageOrder() + 1);
  try {
    writeFileSync(orderFile, off);
  } catch (err) {
    return { note: `host memory: free page reporting is on and could not be paused (${(err as NodeJS.ErrnoException).code}; run as root): a round may be slowed by host faults on fresh page cache`, reportedKiB };
  }
  const restore = () => writeFileSync(orderFile, before);
  onCleanup(`free page reporting (order ${before})`, restore);
  onEmergencyExit(restore);
  return { note: `host memory: free page reporting paused for the bench (page_reporting_order ${before} → ${off}; put back at the end)`, reportedKiB };
}

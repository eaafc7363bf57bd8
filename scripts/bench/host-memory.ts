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

/**
 * The kernel's page_reporting parameters folder. S3AB_PAGE_REPORTING_DIR points the bench at
 * another folder holding the same files (page_reporting_order, reported_kib), so that a test can
 * check on any host that the setting is put back.
 */
export const PAGE_REPORTING_DIR_ENV = 'S3AB_PAGE_REPORTING_DIR';
const parametersDir = () => process.env[PAGE_REPORTING_DIR_ENV] || '/sys/module/page_reporting/parameters';

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

/**
 * The kernel's default reporting order where the balloon driver asks for none: the pageblock
 * order, a PMD-sized huge page (2 MiB of 4 KiB pages: order 9).
 */
function kernelDefaultOrder(): number {
  try {
    const pmd = Number(readFileSync('/sys/kernel/mm/transparent_hugepage/hpage_pmd_size', 'utf8').trim());
    const page = Number(/KernelPageSize:\s+(\d+) kB/.exec(readFileSync('/proc/self/smaps', 'utf8'))?.[1] ?? 4) * 1024;
    const order = Math.log2(pmd / page);
    if (Number.isInteger(order) && order > 0) return order;
  } catch {
    // no transparent huge pages here: the usual 2 MiB of 4 KiB pages
  }
  return 9;
}

const reportedSoFar = (): number | null => {
  const path = `${parametersDir()}/reported_kib`;
  return existsSync(path) ? Number(readFileSync(path, 'utf8').trim()) : null;
};

/**
 * Pauses free page reporting when this machine has it and may change it (root); says what it did.
 * The value it found is written back on every way out: the end, a failure, Ctrl-C, SIGTERM,
 * SIGHUP, SIGQUIT, an uncaught error (the process's exit handler writes it synchronously). A start
 * that finds reporting already paused (an earlier bench killed with SIGKILL) says so, and puts the
 * kernel's default back instead of keeping the paused value as the one to restore.
 */
export function pauseFreePageReporting(pause: boolean): HostMemory {
  const orderFile = `${parametersDir()}/page_reporting_order`;
  const start = reportedSoFar();
  const reportedKiB = () => { const now = reportedSoFar(); return now === null || start === null ? null : now - start; };
  if (!existsSync(orderFile)) return { note: 'host memory: this kernel does not report free pages to a host', reportedKiB };
  const off = largestPageOrder() + 1;
  let before = readFileSync(orderFile, 'utf8').trim();
  const notes: string[] = [];
  if (Number(before) >= off) {
    const kernelDefault = String(kernelDefaultOrder());
    try {
      writeFileSync(orderFile, kernelDefault);
      notes.push(`host memory: free page reporting was found paused (page_reporting_order ${before}, left by an earlier run): put back to the kernel's default, ${kernelDefault}`);
      before = kernelDefault;
    } catch (err) {
      notes.push(`host memory: free page reporting was found paused (page_reporting_order ${before}) and could not be put back (${(err as NodeJS.ErrnoException).code}; run as root)`);
    }
  }
  const done = (note: string): HostMemory => ({ note: [...notes, note].join('\n'), reportedKiB });
  if (!pause) return done(`host memory: free page reporting left on (order ${before}): a round may be slowed by host faults on fresh page cache`);
  try {
    writeFileSync(orderFile, String(off));
  } catch (err) {
    return done(`host memory: free page reporting is on and could not be paused (${(err as NodeJS.ErrnoException).code}; run as root): a round may be slowed by host faults on fresh page cache`);
  }
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      writeFileSync(orderFile, before);
    } catch (err) {
      process.stderr.write(`host memory: could not put page_reporting_order back to ${before} (${(err as NodeJS.ErrnoException).code}): write it to ${orderFile}\n`);
    }
  };
  onCleanup(`free page reporting (order ${before})`, restore);
  onEmergencyExit(restore);
  process.once('exit', restore);
  return done(`host memory: free page reporting paused for the bench (page_reporting_order ${before} → ${off}; put back at the end)`);
}

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mountAt } from '../../core/mounts-table';

/**
 * A FUSE mount's kernel connection, seen through fusectl (/sys/fs/fuse/connections/N, N the
 * mount's minor device number from the mount table — never a stat of the mount point: a stat of a
 * hung mount hangs too). Reading it tells how many requests wait for the client; aborting it makes
 * every blocked call on the mount return ENOTCONN, whatever the client does.
 */
const FUSECTL = '/sys/fs/fuse/connections';

/** The kernel's FUSE control file system, mounted where it is not (as root); false where it cannot be. */
function fusectlReady(): boolean {
  if (existsSync(`${FUSECTL}/`) && mountAt(FUSECTL)) return true;
  return spawnSync('mount', ['-t', 'fusectl', 'none', FUSECTL], { timeout: 5_000 }).status === 0 && !!mountAt(FUSECTL);
}

export class FuseConnection {
  private constructor(readonly id: string) {}

  /** The connection of the FUSE mount at `mountPoint`, or null (not a FUSE mount, or no fusectl here). */
  static of(mountPoint: string): FuseConnection | null {
    const entry = mountAt(mountPoint);
    if (!entry || !entry.fsType.startsWith('fuse')) return null;
    const minor = entry.device.split(':')[1];
    return minor && fusectlReady() && existsSync(`${FUSECTL}/${minor}`) ? new FuseConnection(minor) : null;
  }

  /** Requests waiting for the client; throws when the connection is gone. */
  waiting(): number {
    return Number(readFileSync(`${FUSECTL}/${this.id}/waiting`, 'utf8'));
  }

  /** Aborts the connection: blocked calls return ENOTCONN, the client's reads of /dev/fuse end. */
  abort(): void {
    try {
      writeFileSync(`${FUSECTL}/${this.id}/abort`, '1');
    } catch {
      // already gone
    }
  }
}

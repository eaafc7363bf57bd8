import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Document, DocumentStore } from './documents';

/**
 * Seed 001's "after" pattern: the same job on a mounted file system (S3 Files through its access
 * point on Lambda; a local directory or an s3fs mount in tests): readdir, readFile, writeFile,
 * and an os-level rename.
 */
export class FsDocumentStore implements DocumentStore {
  readonly variant: string;
  readonly version: string;
  readonly options: Record<string, string>;

  constructor(
    readonly method: string,
    private readonly root: string,
    opts: { variant?: string; version?: string; options?: Record<string, string>; cache?: 'none' | 'warm' | 'cold' } = {},
  ) {
    this.variant = opts.variant ?? 'lambda';
    this.version = opts.version ?? 'nfs 4.2 (Lambda file system mount)';
    this.options = { move: 'rename(2)', ...opts.options };
    this.cache = opts.cache ?? 'warm';
  }

  readonly cache: 'none' | 'warm' | 'cold';

  private get inbox(): string {
    return join(this.root, 'inbox');
  }

  private get processed(): string {
    return join(this.root, 'processed');
  }

  async seed(docs: Document[]): Promise<void> {
    // Created from the mount side, so they belong to the access point's user (seed 001's ownership lesson).
    await mkdir(this.inbox, { recursive: true });
    await mkdir(this.processed, { recursive: true });
    for (const d of docs) await writeFile(join(this.inbox, d.name), d.body);
  }

  async list(): Promise<string[]> {
    return (await readdir(this.inbox)).filter((n) => !n.startsWith('.'));
  }

  async listProcessed(): Promise<string[]> {
    return (await readdir(this.processed)).filter((n) => !n.startsWith('.'));
  }

  read(name: string): Promise<Buffer> {
    return readFile(join(this.inbox, name));
  }

  writeMetadata(name: string, body: string): Promise<void> {
    return writeFile(join(this.processed, `${name}.meta.json`), body);
  }

  move(name: string): Promise<void> {
    return rename(join(this.inbox, name), join(this.processed, name));
  }

  async cleanup(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

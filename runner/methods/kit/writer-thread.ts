import { Worker } from 'node:worker_threads';

/**
 * Positional file writes on a dedicated thread, so that writing a download to disk runs beside the
 * network reads instead of between them, as s5cmd's goroutines and the AWS CLI's threads do. On
 * this 2-core machine a writeSync per socket chunk on the event loop took about 0.7 s of its time
 * per GiB, which capped ranged GETs near 700 MiB/s; on a thread they went past 900.
 *
 * Chunks are handed over without a copy where possible: a socket chunk that owns its whole
 * ArrayBuffer is transferred (it is not used again after its 'data' event); anything else is
 * copied first. At most `maxPendingBytes` wait for the thread; `write` reports when the caller
 * should pause its source until `onDrain` fires.
 */

const WRITER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ fd, buffer, length, position }) => {
  try {
    const b = Buffer.from(buffer, 0, length);
    let done = 0;
    while (done < length) done += fs.writeSync(fd, b, done, length - done, position + done);
    // The buffer goes back with the acknowledgement: this thread allocates next to nothing, so
    // its garbage collector would seldom run and written buffers would pile up here.
    parentPort.postMessage({ fd, length, buffer }, [buffer]);
  } catch (e) {
    parentPort.postMessage({ fd, length, error: { message: e.message, code: e.code, syscall: e.syscall } });
  }
});
`;

interface Ack {
  fd: number;
  length: number;
  error?: { message: string; code?: string; syscall?: string };
}

interface FileState {
  pending: number;
  error: Error | null;
  drained: (() => void)[];
}

export class WriterThread {
  private readonly worker: Worker;
  private pendingBytes = 0;
  private readonly files = new Map<number, FileState>();
  private readonly drainListeners = new Set<() => void>();

  constructor(private readonly maxPendingBytes = 32 * 1024 * 1024) {
    // Plain source: the thread needs none of the parent's loaders (tsx in tests and scripts).
    this.worker = new Worker(WRITER_SOURCE, { eval: true, execArgv: [] });
    this.worker.on('message', (ack: Ack) => this.acknowledge(ack));
    this.worker.on('error', (err) => {
      for (const [fd, f] of this.files) this.acknowledge({ fd, length: f.pending, error: { message: `writer thread failed: ${err.message}` } });
    });
    // Only queued writes keep the process alive, not an idle writer (unref after the listeners:
    // adding one refs the port again).
    this.worker.unref();
  }

  private file(fd: number): FileState {
    let f = this.files.get(fd);
    if (!f) this.files.set(fd, (f = { pending: 0, error: null, drained: [] }));
    return f;
  }

  private acknowledge(ack: Ack): void {
    const f = this.file(ack.fd);
    f.pending -= ack.length;
    this.pendingBytes -= ack.length;
    if (this.pendingBytes === 0) this.worker.unref();
    if (ack.error && !f.error) f.error = Object.assign(new Error(`write failed: ${ack.error.message}`), { code: ack.error.code, syscall: ack.error.syscall });
    if (f.pending === 0) for (const resolve of f.drained.splice(0)) resolve();
    if (this.pendingBytes < this.maxPendingBytes) for (const listener of this.drainListeners) listener();
  }

  /** Queues `chunk` for `fd` at `position`. Returns false when the caller should pause its source. */
  write(fd: number, chunk: Buffer, position: number): boolean {
    const f = this.file(fd);
    if (f.error) throw f.error;
    // Read before the hand-over: a transferred buffer is detached and reads as empty afterwards.
    const length = chunk.length;
    const whole = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer;
    let buffer: ArrayBuffer;
    if (whole) {
      buffer = chunk.buffer as ArrayBuffer;
    } else {
      const copy = new Uint8Array(length);
      copy.set(chunk);
      buffer = copy.buffer;
    }
    try {
      this.worker.postMessage({ fd, buffer, length, position }, [buffer]);
    } catch {
      // Not transferable after all (a pooled or untransferable buffer): send a copy.
      const copy = new Uint8Array(length);
      copy.set(chunk);
      this.worker.postMessage({ fd, buffer: copy.buffer, length, position }, [copy.buffer]);
    }
    if (this.pendingBytes === 0) this.worker.ref();
    f.pending += length;
    this.pendingBytes += length;
    return this.pendingBytes < this.maxPendingBytes;
  }

  /** Calls `listener` whenever the backlog falls below the limit; returns the unsubscribe. */
  onDrain(listener: () => void): () => void {
    this.drainListeners.add(listener);
    return () => this.drainListeners.delete(listener);
  }

  /**
   * Resolves when every write queued for `fd` is done (the fd may be closed after that, never
   * before: a closed number can be reused by another file); rejects with the first write error.
   */
  async flushed(fd: number): Promise<void> {
    const f = this.file(fd);
    if (f.pending > 0) await new Promise<void>((resolve) => f.drained.push(resolve));
    this.files.delete(fd);
    if (f.error) throw f.error;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

import type { Hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { PROGRESS_BYTES, reportBytes } from '../../core/intervals';

/**
 * Sequential file reads on a dedicated thread, as fio's psync engine reads: blocking 1 MiB preads
 * back to back, each issued the moment the previous one returns, without waiting for node's event
 * loop. The data goes through a ring of shared buffers to the caller, who hashes it meanwhile; on
 * a busy host the event loop can be late by milliseconds, and a read loop driven by it would
 * measure that instead of the file system.
 */

const CHUNK = 1024 * 1024;
const SLOTS = 4;
// Slot states in the control array; a value ≥ 0 is the byte count of a filled slot.
const EMPTY = -2;
const EOF = -1;
const FAILED = -3;

const READER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, fd, start, data, control, chunk }) => {
  const ctl = new Int32Array(control);
  const buf = Buffer.from(data);
  let position = start;
  let slot = 0;
  try {
    for (;;) {
      for (let v = Atomics.load(ctl, slot); v !== ${EMPTY}; v = Atomics.load(ctl, slot)) Atomics.wait(ctl, slot, v);
      const n = fs.readSync(fd, buf, slot * chunk, chunk, position);
      position += n;
      Atomics.store(ctl, slot, n === 0 ? ${EOF} : n);
      Atomics.notify(ctl, slot);
      if (n === 0) break;
      slot = (slot + 1) % ctl.length;
    }
    parentPort.postMessage({ id, position });
  } catch (e) {
    parentPort.postMessage({ id, error: { message: e.message, code: e.code, syscall: e.syscall } });
    Atomics.store(ctl, slot, ${FAILED});
    Atomics.notify(ctl, slot);
  }
});
`;

interface Reader {
  worker: Worker;
  data: SharedArrayBuffer;
}

// Atomics.waitAsync is in Node ≥ 16 but in TypeScript's ES2024 library only.
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: Promise<string> | string };
}).waitAsync;

const idle: Reader[] = [];
let nextId = 0;

function acquire(): Reader {
  const reader = idle.pop();
  if (reader) return reader;
  // Plain source: the thread needs none of the parent's loaders (tsx in tests and scripts).
  const worker = new Worker(READER_SOURCE, { eval: true, execArgv: [] });
  // An idle reader must not keep the process alive.
  worker.unref();
  return { worker, data: new SharedArrayBuffer(SLOTS * CHUNK) };
}

interface Done {
  id: number;
  position?: number;
  error?: { message: string; code?: string; syscall?: string };
}

/**
 * The reader's answer to request `id`. A reader that crashes is broken (not reused), and every
 * slot is marked failed so that the consumer stops waiting.
 */
function replyFrom(reader: Reader, id: number, ctl: Int32Array): { done: Promise<Done>; readonly broken: boolean } {
  let broken = false;
  const done = new Promise<Done>((resolve) => {
    const onMessage = (m: Done) => {
      if (m.id !== id) return;
      reader.worker.off('message', onMessage);
      reader.worker.off('error', onError);
      resolve(m);
    };
    const onError = (err: Error) => {
      broken = true;
      reader.worker.off('message', onMessage);
      resolve({ id, error: { message: err.message } });
      for (let i = 0; i < SLOTS; i++) {
        Atomics.store(ctl, i, FAILED);
        Atomics.notify(ctl, i);
      }
    };
    reader.worker.on('message', onMessage);
    reader.worker.once('error', onError);
  });
  return { done, get broken() { return broken; } };
}

/** The failed call's error as the reader saw it, with its errno code and system call. */
function errnoError(error: NonNullable<Done['error']>): NodeJS.ErrnoException {
  const err = new Error(error.message) as NodeJS.ErrnoException;
  if (error.code) err.code = error.code;
  if (error.syscall) err.syscall = error.syscall;
  return err;
}

/**
 * Reads the open file `fd` from byte `start` to its end on a reader thread (file descriptors are
 * shared by the threads of a process; the caller keeps it open until this returns), feeding every
 * chunk to `hash`. Returns the end position. Errors carry the errno code of the failed call
 * (ENOTCONN when the FUSE client died, ...).
 */
export async function readRestOnThread(fd: number, start: number, hash: Pick<Hash, 'update'>): Promise<number> {
  const reader = acquire();
  const id = nextId++;
  const control = new SharedArrayBuffer(SLOTS * 4);
  const ctl = new Int32Array(control).fill(EMPTY);
  const view = Buffer.from(reader.data);
  const reply = replyFrom(reader, id, ctl);
  reader.worker.ref();
  reader.worker.postMessage({ id, fd, start, data: reader.data, control, chunk: CHUNK });
  // The bytes read so far go to the measurement's series every PROGRESS_BYTES (a large file's course).
  let unreported = start;
  let since = process.hrtime.bigint();
  try {
    for (let slot = 0; ; slot = (slot + 1) % SLOTS) {
      let state = Atomics.load(ctl, slot);
      while (state === EMPTY) {
        const wait = waitAsync(ctl, slot, EMPTY);
        if (wait.async) await wait.value;
        state = Atomics.load(ctl, slot);
      }
      if (state === EOF || state === FAILED) break;
      hash.update(view.subarray(slot * CHUNK, slot * CHUNK + state));
      Atomics.store(ctl, slot, EMPTY);
      Atomics.notify(ctl, slot);
      unreported += state;
      if (unreported >= PROGRESS_BYTES) {
        const now = process.hrtime.bigint();
        reportBytes(unreported, Number(now - since));
        unreported = 0;
        since = now;
      }
    }
    const result = await reply.done;
    if (result.error) throw errnoError(result.error);
    return result.position!;
  } finally {
    reader.worker.unref();
    if (reply.broken) void reader.worker.terminate();
    else idle.push(reader);
  }
}

import { parentPort, workerData } from 'node:worker_threads';
import { metadataThreadJob } from '../metadata.thread';
import { readFilesThreadJob } from './read-files.thread';
import type { ThreadJob } from './threads';
import { CONTROL_ABORT, CONTROL_GO, nowNs, type ThreadContext, type ThreadJobHandler } from './thread-job';

/**
 * Entry point of the runner's measuring threads (see runner/workloads/kit/threads.ts): prepares its job
 * untimed, reports ready, waits for the common start signal, runs, and posts the result.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const HANDLERS: Record<string, ThreadJobHandler<any, any, any>> = {
  metadata: metadataThreadJob,
  'read-files': readFilesThreadJob,
};

/** Operations counted locally before they are added to the progress line's shared counter. */
const FLUSH_OPS = 64;

function main(): void {
  const { job, control, counters, index, live } = workerData as { job: ThreadJob; control: Int32Array; counters: Int32Array; index: number; live: BigInt64Array };
  const pending = { bytes: 0, ops: 0 };
  const flush = () => {
    if (!pending.ops && !pending.bytes) return;
    Atomics.add(live, 0, BigInt(pending.bytes));
    Atomics.add(live, 1, BigInt(pending.ops));
    pending.bytes = 0;
    pending.ops = 0;
  };
  const handler = HANDLERS[job.kind];
  const post = (msg: unknown) => parentPort!.postMessage(msg);
  try {
    if (!handler) throw new Error(`no thread job "${job.kind}" (known: ${Object.keys(HANDLERS).join(', ')})`);
    const ctx: ThreadContext = {
      aborted: () => Atomics.load(control, CONTROL_ABORT) === 1,
      progress: (note) => post({ type: 'progress', note }),
      done: (n = 1) => void Atomics.add(counters, index, n),
      // Added to the shared counter every FLUSH_OPS operations (and at the end): two atomic adds per operation would cost more than the log.
      count: (bytes, ops) => {
        pending.bytes += bytes;
        pending.ops += ops;
        if (pending.ops >= FLUSH_OPS) flush();
      },
    };
    const state = handler.prepare(job, ctx);
    const readyNs = nowNs();
    post({ type: 'ready' });
    Atomics.wait(control, CONTROL_GO, 0);
    const startedNs = nowNs();
    const { result, transfer } = handler.run(state, ctx);
    flush();
    parentPort!.postMessage({ type: 'done', result, span: { readyNs, startedNs, endedNs: nowNs() } }, transfer ?? []);
  } catch (err) {
    post({ type: 'error', message: (err as Error)?.stack ?? String(err) });
  }
}

main();

import { createHash } from 'node:crypto';
import { Batch, type Measurement } from '../../runner/core/batch';

/**
 * Seed 001's document-processing job, written once and run by both Lambdas: list the inbox; for
 * every document read it, count its words and lines, write `NAME.meta.json` to processed/, and
 * move the document to processed/. Only the store differs: `before` reaches S3 through the API
 * (download to /tmp, copy + delete to move), `after` through the S3 Files mount (plain files,
 * os-level rename).
 */
export interface DocumentStore {
  /** Method name recorded with the results (`s3-api`, `s3-files`, or `local-fs` in tests). */
  readonly method: string;
  readonly variant: string;
  readonly version: string;
  readonly options: Record<string, string>;
  /** Cache state the reads see (recorded as is). */
  readonly cache: 'none' | 'warm' | 'cold';
  /** Puts documents into the inbox (untimed; the way this approach's producer writes). */
  seed(docs: Document[]): Promise<void>;
  /** Names of the documents in the inbox. */
  list(): Promise<string[]>;
  /** The document's content. */
  read(name: string): Promise<Buffer>;
  /** Writes processed/NAME.meta.json. */
  writeMetadata(name: string, body: string): Promise<void>;
  /** Moves inbox/NAME to processed/NAME. */
  move(name: string): Promise<void>;
  /** Names under processed/ (untimed check). */
  listProcessed(): Promise<string[]>;
  /** Removes everything this batch wrote (untimed). */
  cleanup(): Promise<void>;
}

export interface Document {
  name: string;
  body: Buffer;
  sha256: string;
}

export interface DocumentMetadata {
  word_count: number;
  lines: number;
  sha256: string;
}

export interface BatchOutcome {
  files: number;
  /** One measurement per phase: list, read, process, write, move, total. */
  measurements: Measurement[];
  /** Milliseconds per phase (the handler's return value and Powertools metrics). */
  phasesMs: Record<string, number>;
}

const WORDS = ('storage object bucket file system mount latency throughput request prefix key version cache metadata rename directory '
  + 'lambda function network read write list copy delete sync commit benchmark client server region zone kernel page block').split(' ');

/** Deterministic text documents of `minWords`–`maxWords` words (seed 001: 20 files of 500–2000 words). */
export function makeDocuments(seed: string, count: number, minWords = 500, maxWords = 2000): Document[] {
  if (!Number.isInteger(count) || count < 1 || count > 10_000) throw new Error(`documents must be 1–10000, got ${count}`);
  if (minWords < 1 || maxWords < minWords) throw new Error(`word range ${minWords}–${maxWords} is not valid`);
  const docs: Document[] = [];
  for (let i = 0; i < count; i++) {
    let state = createHash('sha256').update(`${seed}/${i}`).digest();
    let n = 0;
    const next = () => {
      if (n + 4 > state.length) { state = createHash('sha256').update(state).digest(); n = 0; }
      const v = state.readUInt32BE(n);
      n += 4;
      return v;
    };
    const words = minWords + (next() % (maxWords - minWords + 1));
    const lines: string[] = [];
    let line: string[] = [];
    for (let w = 0; w < words; w++) {
      line.push(WORDS[next() % WORDS.length]);
      if (line.length >= 12) { lines.push(line.join(' ')); line = []; }
    }
    if (line.length) lines.push(line.join(' '));
    const body = Buffer.from(`${lines.join('\n')}\n`);
    docs.push({ name: `doc-${String(i + 1).padStart(5, '0')}.txt`, body, sha256: createHash('sha256').update(body).digest('hex') });
  }
  return docs;
}

/** The processing step itself: what both Lambdas compute per document. */
export function analyze(content: Buffer): DocumentMetadata {
  const text = content.toString('utf8');
  return {
    word_count: text.split(/\s+/).filter(Boolean).length,
    lines: (text.match(/\n/g) ?? []).length,
    sha256: createHash('sha256').update(content).digest('hex'),
  };
}

/**
 * Processes every document of the inbox and times each phase. `expected` (the seeded documents)
 * makes every read checked against its SHA-256 and the end state (all moved, all metadata
 * written) checked through the store's own listing.
 */
export async function processInbox(store: DocumentStore, expected: Document[]): Promise<BatchOutcome> {
  const total = new Batch('total', null, 'concurrent', false);
  total.start();
  const list = new Batch('list', null, 'sequential', false);
  const read = new Batch('read', null);
  const process = new Batch('process', null, 'sequential', false);
  const write = new Batch('write', null);
  const move = new Batch('move', null, 'sequential', false);

  const names = (await list.op(() => store.list())) ?? [];
  const byName = new Map(expected.map((d) => [d.name, d]));
  const missing = expected.filter((d) => !names.includes(d.name)).map((d) => d.name);
  list.verify(missing.length === 0 && names.length === expected.length,
    `the inbox listing has ${names.length} documents, expected ${expected.length}${missing.length ? ` (missing ${missing.slice(0, 3).join(', ')})` : ''}`);
  let readOk = true;
  for (const name of [...names].sort()) {
    const content = await read.op(() => store.read(name), (b) => b.length);
    if (!content) continue;
    const meta = await process.op(async () => analyze(content));
    if (!meta) continue;
    if (meta.sha256 !== byName.get(name)?.sha256) {
      readOk = false;
      read.verify(false, `${name}: content read does not match what was seeded (sha256 ${meta.sha256.slice(0, 12)}…)`);
    }
    const body = JSON.stringify(meta);
    const written = await write.op(async () => { await store.writeMetadata(name, body); return true; }, () => Buffer.byteLength(body));
    if (!written) continue;
    await move.op(async () => { await store.move(name); return true; });
  }
  const wall = total.finish();

  // Untimed end-state check through the store itself.
  const processed = new Set(await store.listProcessed().catch(() => [] as string[]));
  const endOk = expected.every((d) => processed.has(d.name) && processed.has(`${d.name}.meta.json`));
  const remaining = await store.list().catch(() => ['?']);
  if (readOk) read.verify(true);
  process.verify(true);
  write.verify(endOk, 'processed/ does not hold every document\'s metadata');
  move.verify(endOk && remaining.length === 0, remaining.length ? `${remaining.length} documents left in the inbox` : 'processed/ does not hold every moved document');

  const measurements = [list, read, process, write, move].map((b) => b.finish());
  const allOk = measurements.every((m) => m.status === 'ok' && m.verified);
  const totalMeasurement: Measurement = {
    ...wall,
    ops: names.length,
    ok: allOk ? names.length : measurements.reduce((n, m) => Math.min(n, m.ok), names.length),
    failed: allOk ? 0 : Math.max(...measurements.map((m) => m.failed), 1),
    bytes: measurements.find((m) => m.operation === 'read')!.bytes,
    status: allOk ? 'ok' : 'failed',
    verified: allOk,
    latency: null,
    errorSample: measurements.find((m) => m.errorSample)?.errorSample ?? null,
  };
  measurements.push(totalMeasurement);
  return {
    files: names.length,
    measurements,
    phasesMs: Object.fromEntries(measurements.map((m) => [m.operation, Math.round(m.durationMs * 1000) / 1000])),
  };
}

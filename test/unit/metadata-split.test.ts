import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ThreadContext } from '../../runner/core/thread-job';
import { metadataThreadJob, splitPicks, type MetadataJob } from '../../runner/workloads/metadata.thread';

/**
 * The metadata thread's split mode (`opLog: 'split'`), the same-run verdict of `npm run
 * bench:series`: a pseudo-random half of the operations logs, and each operation but the first is
 * counted after a logged one or after an unlogged one. The thread's job is run in this process
 * (prepare, then run), as the measuring thread would run it, on tmpfs where there is one.
 */
const ctx: ThreadContext = { aborted: () => false, progress: () => {}, done: () => {}, count: () => {} };
const OPS = 400;

describe('the metadata thread\'s split mode', () => {
  const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 's3ab-meta-split-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const job = (opLog: MetadataJob['opLog'], seed = 'split-test'): MetadataJob =>
    ({ kind: 'metadata', test: 'stat', dir: join(root, `t-${String(opLog)}`), ops: OPS, size: 4096, syncEvery: 100, seed, opLog });
  const run = (j: MetadataJob) => metadataThreadJob.run(metadataThreadJob.prepare(j, ctx), ctx).result;

  test('the picks: exactly half, the same for the same seed, another for another seed, not by parity', () => {
    const picks = splitPicks('split-test', OPS);
    expect(picks.reduce((n, p) => n + p, 0)).toBe(OPS / 2);
    expect(splitPicks('split-test', OPS)).toEqual(picks);
    expect(splitPicks('split-test/2', OPS)).not.toEqual(picks);
    const even = picks.filter((_, i) => i % 2 === 0).reduce((n, p) => n + p, 0);
    expect(Math.abs(even - OPS / 4)).toBeLessThan(OPS / 8); // about half of the even ones, not all or none
  });

  test('the log holds exactly the logged operations; the groups cover every operation but the first, about half each', () => {
    const r = run(job('split'));
    expect(r.ok).toBe(OPS);
    expect(r.verified).toBe(true);
    const picks = splitPicks('split-test', OPS);
    const lat = r.latenciesNs; // every operation succeeded: latency i is operation i's time
    // The log: one entry per logged operation, its latency, at the active clock after it.
    const s = r.split!;
    const log = r.log!;
    expect(s.logged).toBe(OPS / 2);
    expect(log.at.length).toBe(OPS / 2);
    let active = 0;
    const at: number[] = [];
    const latency: number[] = [];
    for (let i = 0; i < OPS; i++) {
      active += lat[i];
      if (picks[i]) {
        at.push(active);
        latency.push(lat[i]);
      }
    }
    expect(Array.from(log.at)).toEqual(at);
    expect(Array.from(log.latency)).toEqual(latency);
    expect(active).toBe(r.activeNs);
    // The groups: operation i (i ≥ 1) is filed under whether operation i − 1 was logged.
    let afterLoggedNs = 0;
    let afterLogged = 0;
    for (let i = 1; i < OPS; i++) {
      if (!picks[i - 1]) continue;
      afterLoggedNs += lat[i];
      afterLogged++;
    }
    expect(s.afterLogged + s.afterUnlogged).toBe(OPS - 1);
    expect(s.afterLogged).toBe(afterLogged);
    expect(s.afterLoggedNs).toBe(afterLoggedNs);
    expect(s.afterLoggedNs + s.afterUnloggedNs).toBe(r.activeNs - lat[0]);
    for (const n of [s.afterLogged, s.afterUnlogged]) {
      expect(n).toBeGreaterThan(0);
      expect(Math.abs(n / (OPS - 1) - 0.5)).toBeLessThanOrEqual(0.01);
    }
  });

  test('true and false keep their meaning: every operation logged, or none; no split', () => {
    const on = run(job(true));
    expect(on.ok).toBe(OPS);
    expect(on.log!.at.length).toBe(OPS);
    expect(Array.from(on.log!.latency)).toEqual(Array.from(on.latenciesNs));
    expect(on.split).toBeNull();
    const off = run(job(false));
    expect(off.ok).toBe(OPS);
    expect(off.log).toBeNull();
    expect(off.split).toBeNull();
  });
});

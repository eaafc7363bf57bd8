import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { markAbandoned, readRunManifests } from '../../runner/results/manifests';

/** A pid no process can have (above the kernel's limit): a process that is gone, without starting one. */
const goneProcessId = () => Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;

describe('run manifests: one reader, abandoned runs told apart', () => {
  let dir: string;
  const write = (runId: string, fields: Record<string, unknown>) => writeFileSync(join(dir, '_runs', `${runId}.json`), JSON.stringify({
    run_id: runId, status: 'running', started_at: `2026-11-2${runId.slice(-1)}T10:00:00.000Z`, ended_at: null, matrix: 'm', steps_total: 3, steps_done: 1, steps_failed: 0,
    problem: null, endpoint: null, peak_rss_bytes: null, ...fields,
  }));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-manifests-'));
    mkdirSync(join(dir, '_runs'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('"running" whose process on this host is gone is abandoned; a live one, another host\'s, or one without a pid stays running', () => {
    const gone = goneProcessId();
    write('20261122T100000Z-aaaaa1', { pid: gone, hostname: hostname() });
    write('20261122T100000Z-aaaaa2', { pid: process.ppid, hostname: hostname() });
    write('20261122T100000Z-aaaaa3', { pid: gone, hostname: 'another-host' });
    write('20261122T100000Z-aaaaa4', {});
    writeFileSync(join(dir, '_runs', 'broken.json'), '{ not json');
    const { manifests, bad } = readRunManifests(dir);
    const status = Object.fromEntries(manifests.map((m) => [m.run_id, m.status]));
    expect(status).toEqual({ '20261122T100000Z-aaaaa1': 'abandoned', '20261122T100000Z-aaaaa2': 'running', '20261122T100000Z-aaaaa3': 'running', '20261122T100000Z-aaaaa4': 'running' });
    expect(manifests.find((m) => m.status === 'abandoned')!.problem).toMatch(new RegExp(`pid ${gone} on .* ended without finishing it`));
    expect(bad).toEqual([{ path: join(dir, '_runs', 'broken.json'), runId: null, reason: expect.stringMatching(/^not a run manifest: /) }]);
  });

  test('a new run rewrites abandoned manifests as such', () => {
    const gone = goneProcessId();
    write('20261122T100000Z-bbbbb1', { pid: gone, hostname: hostname() });
    expect(markAbandoned(dir)).toEqual(['20261122T100000Z-bbbbb1']);
    expect(JSON.parse(readFileSync(join(dir, '_runs', '20261122T100000Z-bbbbb1.json'), 'utf8')).status).toBe('abandoned');
    expect(markAbandoned(dir)).toEqual([]);
  });
});

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addMethodLine, LINE_COLUMNS, setup } from '../../runner/install/setup.mjs';

/**
 * Setup installs missing components side by side, through its real installer: venv components
 * with a stand-in `python3` on PATH whose `pip install` takes a second and notes when it ran, so
 * the test sees the installs overlap. An optional component's failure is reported (its log named)
 * and does not fail setup; a required one's does.
 */
describe('setup: independent installs run side by side; an optional failure is reported, not fatal', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-setup-parallel-'));
  const root = join(dir, 'project');
  const bin = join(dir, 'bin');
  const spans = join(dir, 'spans.txt');
  const savedPath = process.env.PATH;
  const venv = (name: string, estimateSeconds = 5) => ({ what: `tool ${name}`, version: '1.0', local: { kind: 'venv', package: name, dir: name }, estimateSeconds });

  beforeAll(() => {
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'assets', 'install.json'), JSON.stringify({
      components: { alpha: venv('alpha'), beta: venv('beta'), gamma: venv('gamma'), broken: venv('broken'), slow: venv('slow', 530) },
      base: [], workloads: {}, tests: [],
      methods: { 'needs-broken': { needs: ['broken'], runsOn: ['local'] }, 'needs-alpha': { needs: ['alpha'], runsOn: ['local'] }, 'needs-slow': { needs: ['slow', 'broken'], runsOn: ['local'] } },
    }));
    mkdirSync(bin, { recursive: true });
    // `python3 -m venv DIR` writes DIR/bin/pip; that pip's `install PKG==V` sleeps a second, notes
    // its start and end, and writes DIR/bin/PKG answering `--version` and DIR/bin/python answering the
    // installed version (the package "broken" fails).
    const pip = [
      '#!/bin/sh',
      'for a in "$@"; do spec=$a; done; pkg=${spec%%==*}',
      `start=$(date +%s.%N); sleep 1; echo "$pkg $start $(date +%s.%N)" >> ${spans}`,
      'if [ "$pkg" = broken ]; then echo "no matching distribution for broken" >&2; exit 1; fi',
      'printf "#!/bin/sh\\necho $pkg 1.0\\n" > "$(dirname "$0")/$pkg"; chmod 755 "$(dirname "$0")/$pkg"',
      // The venv's python answers setup's version query (importlib.metadata) with the version installed.
      'printf "#!/bin/sh\\necho 1.0\\n" > "$(dirname "$0")/python"; chmod 755 "$(dirname "$0")/python"',
    ].join('\n');
    writeFileSync(join(bin, 'python3'), [
      '#!/bin/sh',
      'd=$3; mkdir -p "$d/bin"',
      `cat > "$d/bin/pip" <<'PIP'\n${pip}\nPIP`,
      'chmod 755 "$d/bin/pip"',
    ].join('\n'));
    chmodSync(join(bin, 'python3'), 0o755);
    process.env.PATH = `${bin}:${savedPath}`;
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
  });

  const readSpans = () => readFileSync(spans, 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([name, a, b]) => ({ name, start: Number(a), end: Number(b) }));

  test('three missing components install at once: each line names one, and the wall time is about one install', async () => {
    const lines: string[] = [];
    const t0 = Date.now();
    expect(await setup(root, ['alpha', 'beta', 'gamma'], (l) => lines.push(l))).toBe(0);
    const wall = (Date.now() - t0) / 1000;
    const s = readSpans();
    expect(s.map((x) => x.name).sort()).toEqual(['alpha', 'beta', 'gamma']);
    // Overlapping: every install started before any of them ended.
    expect(Math.max(...s.map((x) => x.start))).toBeLessThan(Math.min(...s.map((x) => x.end)));
    expect(wall).toBeLessThan(3 * 1 + 1);
    for (const name of ['alpha', 'beta', 'gamma']) {
      expect(lines.filter((l) => l.startsWith(`[setup] ${name} `))).toEqual([expect.stringContaining('installing tool'), expect.stringMatching(/installed in \d/)]);
    }
    expect(lines.at(-1)).toMatch(/^\[setup\] 3 components installed in/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(LINE_COLUMNS);
    expect(await setup(root, ['alpha', 'beta', 'gamma', '--optional=needs-broken'], () => {})).toBe(0);
  });

  test('an optional component that fails: its failure and log file are named, the others install, setup succeeds', async () => {
    rmSync(spans, { force: true });
    rmSync(join(root, '.tools', 'alpha'), { recursive: true, force: true });
    const lines: string[] = [];
    expect(await setup(root, ['alpha', '--optional=needs-broken'], (l) => lines.push(l))).toBe(0);
    const text = lines.join('\n');
    expect(text).toMatch(/^\[setup\] broken .* FAILED: pip install exited with 1: no matching distribution…$/m);
    expect(text).toContain('[setup]   full output: ');
    expect(text).toMatch(/setup-broken\.log$/m);
    expect(text).toMatch(/^\[setup\] {3}optional: a run skips what needs broken and says why$/m);
    expect(text).toMatch(/^\[setup\] alpha .* installed in/m);
    expect(readFileSync(join(root, '.tools', 'logs', 'setup-broken.log'), 'utf8')).toContain('no matching distribution for broken');
  });

  test('the same component required: setup fails (exit 1) once the others are done', async () => {
    rmSync(join(root, '.tools', 'beta'), { recursive: true, force: true });
    const lines: string[] = [];
    expect(await setup(root, ['beta', 'needs-broken'], (l) => lines.push(l))).toBe(1);
    expect(lines.join('\n')).toMatch(/^\[setup\] beta .* installed in/m);
    expect(lines.join('\n')).toMatch(/^\[setup\] broken .* FAILED/m);
  });

  test('a run\'s last lines: the command that adds a skipped method and its time by the estimate, none when it is installed', async () => {
    expect(addMethodLine(root, 'needs-slow')).toBe('add needs-slow: `npm run setup -- needs-slow` (about 9 min the first time, by the registry\'s estimate)');
    expect(addMethodLine(root, 'needs-broken')).toBe('add needs-broken: `npm run setup -- needs-broken` (about 5 s the first time, by the registry\'s estimate)');
    expect(await setup(root, ['alpha'], () => {})).toBe(0);
    // Installed, yet skipped: the host lacks something, which the run's own reason names.
    expect(addMethodLine(root, 'needs-alpha')).toBeNull();
    expect(addMethodLine(root, 'no-such-method')).toBeNull();
  });
});

import runnerSetup from '../../assets/measured/runner-setup.json';
import { s3CrtClientBuildSeconds, setupSeconds } from '../../runner/plan/setup-model';

describe('runner setup model: each cargo-built client by its own figures', () => {
  const link = 100; // MiB/s
  const zerofs = (runnerSetup as unknown as { zerofs: { wallSeconds: number; cpus: number; mib: number } }).zerofs;

  test('ZeroFS: its cold build (an upper bound from its cargo log) or its binary from the build cache, not the s3-crt client\'s', () => {
    const cold = setupSeconds(['zerofs'], link, 'cold');
    expect(cold.longest).toBe('zerofs build');
    expect(cold.parallel).toBeCloseTo(zerofs.wallSeconds * zerofs.cpus / 2);
    const warm = setupSeconds(['zerofs'], link, 'warm');
    expect(warm.parallel).toBeGreaterThanOrEqual(zerofs.mib / link);
    expect(warm.seconds).toBeLessThan(cold.seconds);
  });

  test('a shard with both builds them side by side: the longer one is the parallel part', () => {
    const both = setupSeconds(['s3-crt-client', 'zerofs'], link, 'cold');
    expect(both.parallel).toBeCloseTo(Math.max(s3CrtClientBuildSeconds(), zerofs.wallSeconds * zerofs.cpus / 2));
  });
});

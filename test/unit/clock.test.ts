import { CLOCK_BOUND_MS, fleetClock, ONE_HOST_CLOCK_ENV, parseChronyTracking } from '../../runner/core/clock';

/** `chronyc -n tracking` as Amazon Linux 2023 prints it against the Amazon Time Sync Service. */
const tracking = (systemTime: string) => [
  'Reference ID    : A9FEA97B (169.254.169.123)',
  'Stratum         : 4',
  'Ref time (UTC)  : Thu Nov 26 04:12:31 2026',
  `System time     : ${systemTime} of NTP time`,
  'Last offset     : +0.000001234 seconds',
  'Leap status     : Normal',
].join('\n');

describe('a fleet runner\'s clock (runner/core/clock.ts)', () => {
  test('chrony\'s offset: fast is ahead (positive), slow behind, in ms', () => {
    expect(parseChronyTracking(tracking('0.000012345 seconds fast'))).toBeCloseTo(0.012345, 9);
    expect(parseChronyTracking(tracking('0.030000000 seconds slow'))).toBeCloseTo(-30, 9);
    expect(parseChronyTracking('506 Cannot talk to daemon')).toBeNull();
  });

  test('within the bound: recorded with its source', async () => {
    await expect(fleetClock({}, async () => tracking('0.000250000 seconds slow'))).resolves.toEqual({ offsetMs: -0.25, source: 'chrony' });
  });

  test('beyond the bound, or chrony silent: refused, naming the bound and the fix', async () => {
    const ahead = fleetClock({}, async () => tracking('0.051000000 seconds fast'));
    await expect(ahead).rejects.toThrow(new RegExp(`51.0 ms ahead of NTP time \\(chrony\\), beyond the ${CLOCK_BOUND_MS} ms`));
    await expect(fleetClock({}, async () => tracking('0.051000000 seconds fast'))).rejects.toMatchObject({ fix: expect.stringMatching(/169\.254\.169\.123.*chronyd/) });
    await expect(fleetClock({}, async () => { throw new Error('spawn chronyc ENOENT'); })).rejects.toThrow(/`chronyc tracking` failed \(spawn chronyc ENOENT\); fleet steps need it within 50 ms/);
    await expect(fleetClock({}, async () => 'Reference ID : 00000000 ()')).rejects.toThrow(/no "System time" line/);
  });

  test('one host\'s clock only when asked for explicitly: no offset, source "one host"; anything else is refused', async () => {
    const never = async (): Promise<string> => { throw new Error('not read'); };
    await expect(fleetClock({ [ONE_HOST_CLOCK_ENV]: 'one-host' }, never)).resolves.toEqual({ offsetMs: null, source: 'one host' });
    await expect(fleetClock({ [ONE_HOST_CLOCK_ENV]: 'yes' }, never)).rejects.toThrow(/S3AB_FLEET_CLOCK="yes" is not a clock override/);
  });
});

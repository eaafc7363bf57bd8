import { bucketSyncBoundMs } from '../../runner/workloads/kit/common';

const fs = (uploadsAfterClose: boolean, exportMs: number) => ({ uploadsAfterClose, bucketLag: { exportMs, importMs: 0 } });

describe('how long a check waits for what a mount wrote to reach the bucket', () => {
  test('a client that uploads before close returns: no wait, or the floor asked for', () => {
    expect(bucketSyncBoundMs(fs(false, 0))).toBe(0);
    expect(bucketSyncBoundMs(fs(false, 0), 10_000)).toBe(10_000);
  });
  test('a write-back client (rclone): two minutes', () => {
    expect(bucketSyncBoundMs(fs(true, 0))).toBe(120_000);
  });
  test('a file system that syncs in the background (S3 Files): its export bound', () => {
    expect(bucketSyncBoundMs(fs(false, 180_000))).toBe(180_000);
    expect(bucketSyncBoundMs(fs(false, 180_000), 10_000)).toBe(180_000);
  });
  test('an object method: no mount, no wait', () => {
    expect(bucketSyncBoundMs(null)).toBe(0);
  });
});

import { randomBytes } from 'node:crypto';

/** A run id: UTC start time and a random suffix, e.g. 20261122T101500Z-ab12cd (the schema's run_id pattern). */
export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z-${randomBytes(3).toString('hex')}`;
}

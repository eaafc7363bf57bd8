/**
 * Every CDK App a test file builds synthesizes, and stages its assets, into one folder of the file's
 * own, removed when the file's tests end (jest.config.js, both tiers). App reads CDK_OUTDIR when it
 * is given no outdir; without it, each App makes a new /tmp/cdk.outXXXX that nothing removes (about
 * 40 a full test run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const outdir = mkdtempSync(join(tmpdir(), 's3ab-test-cdk-'));
process.env.CDK_OUTDIR = outdir;
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

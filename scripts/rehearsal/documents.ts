/**
 * The SSM documents as a rehearsal's runner sandbox runs them. run-step: every line of the
 * synthesized document. setup: its sections that install nothing on the host (the prologue, the
 * callback and its exit trap, the check of the shard's install list) as synthesized, the bundle
 * copied from this checkout instead of downloaded; the sections that install packages and clients
 * or mount S3 Files are left out, and their AWS requests (the bundle's S3 objects, the S3 Files
 * mount, a license read from SSM) are checked against the runner's IAM instead. Only paths, IMDS answers and the S3
 * endpoint change in a line (`localize`).
 */
import { join } from 'node:path';
import type { IamRequest } from './iam';
import type { Sandbox } from './local-cloud';
import { mountRequests } from './s3-files';
import { ACCOUNT, REGION, type RehearsalTemplate } from './template';

const ROOT = join(__dirname, '..', '..');
/** Setup sections run as synthesized; `bundle` is stood in for; the rest install on the host and are left out. */
const SETUP_AS_IS = ['prologue', 'callback'];

export interface SandboxDocuments {
  lines: Record<'setup' | 'run-step', string[]>;
  skipped: Record<'setup' | 'run-step', (box: Sandbox) => IamRequest[]>;
  localize: (line: string, box: Sandbox) => string;
}

export function sandboxDocuments(template: RehearsalTemplate, p: { endpoint: string; runnerRole: string; fileSystemArn: string; subnets: string[] }): SandboxDocuments {
  const sections = template.documentSections('setup');
  for (const name of [...SETUP_AS_IS, 'bundle']) if (!sections.has(name)) throw new Error(`rehearsal: the setup document has no section ${name} (lib/runner-document-shell.ts SECTION)`);
  const bundle = [
    `rm -rf /opt/s3ab && mkdir -p /opt/s3ab && cp -r ${ROOT}/dist /opt/s3ab/dist && ln -s ${ROOT}/assets /opt/s3ab/assets && ln -s ${ROOT}/.tools /opt/s3ab/.tools`,
    `NODE=${process.execPath}`, 'echo "$NODE" > /opt/s3ab/node',
  ];
  const left = [...sections].filter(([name]) => !SETUP_AS_IS.includes(name)).flatMap(([, lines]) => lines);
  const skippedSetup = (): IamRequest[] => [
    // The bundle and assets the runner downloads from the CDK asset bucket.
    ...left.flatMap((l) => [...l.matchAll(/s3:\/\/([^/\s]+)\/(\S+)/g)]).map((m) => ({ principal: p.runnerRole, action: 's3:GetObject', resource: `arn:aws:s3:::${m[1]}/${m[2]}`, source: 'setup document (left out here)' })),
    // The S3 Files mount check, as root.
    ...(left.some((l) => /mount -t s3files/.test(l)) ? mountRequests(p.runnerRole, p.fileSystemArn, { root: true }) : []),
    // A license read from SSM by name (ObjectiveFS, in a stack deployed with one).
    ...left.flatMap((l) => [...l.matchAll(/aws ssm get-parameter --name '\/?([^']+)'/g)])
      .map((m) => ({ principal: p.runnerRole, action: 'ssm:GetParameter', resource: `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/${m[1]}`, source: 'setup document (left out here)' })),
  ];
  return {
    lines: { setup: [...SETUP_AS_IS.flatMap((s) => sections.get(s)!), ...bundle], 'run-step': template.documentLines('run-step') },
    skipped: { setup: skippedSetup, 'run-step': () => [] },
    localize: (line, box) => localize(line, box, p.endpoint, p.subnets),
  };
}

/** A document line with this machine's paths, IMDS answers and S3 endpoint. */
function localize(line: string, box: Sandbox, endpoint: string, subnets: string[]): string {
  const az = `us-east-1${'abcdef'[Math.max(0, subnets.indexOf(box.subnet))]}`;
  return line
    .replaceAll('/opt/s3ab', join(box.dir, 'opt', 's3ab'))
    .replaceAll('/run/s3ab', join(box.dir, 'run', 's3ab'))
    .replaceAll('/var/log/', `${join(box.dir, 'log')}/`)
    .replace(/^TOKEN=\$\(curl .*$/, 'TOKEN=local')
    .replace(/^md\(\) \{.*$/, `md() { case "$1" in instance-type) echo ${box.instanceType};; placement/region) echo us-east-1;; placement/availability-zone) echo ${az};; instance-id) echo ${box.id};; esac; }`)
    .replace('export TMPDIR=/var/tmp/s3ab', `export TMPDIR=${join(box.dir, 'tmp')}`)
    .replace(/\baws s3 (cp|rm)\b/g, (_, op: string) => `aws --endpoint-url ${endpoint} s3 ${op}`)
    .replace(/(s3ab\.js step .*)$/, `$1 --endpoint ${endpoint}`);
}

/**
 * What a rehearsal needs on this host, installed first as `npm run local` installs what its run
 * needs: the base (npm packages, the embedded S3 server), the AWS CLI (the runner documents' own
 * lines call `aws s3 cp` and `aws stepfunctions`), and the clients of the matrix's methods and
 * workloads (`s3ab setup --for-run`, which leaves optional methods to be built on request). Each
 * component already present is skipped in well under a second (scripts/setup.mjs).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { RunError } from '../../runner/core/errors';

const ROOT = join(__dirname, '..', '..');
/** Components the runner documents call on every runner, whatever the matrix. */
const DOCUMENT_TOOLS = ['awscli'];

/** Installs what the rehearsal of this profile or matrix file needs; throws naming the command that failed. */
export function installForRehearsal(run: { profile?: string; matrixFile?: string }): void {
  const commands: { what: string; argv: string[] }[] = [
    { what: 'the base and the AWS CLI', argv: [join(ROOT, 'scripts', 'setup.mjs'), '--quiet', ...DOCUMENT_TOOLS] },
    {
      what: 'the clients of the matrix',
      argv: [join(ROOT, 'dist', 's3ab.js'), 'setup', '--quiet', '--for-run', ...(run.matrixFile ? ['--matrix', run.matrixFile] : ['--profile', run.profile ?? 'quick'])],
    },
  ];
  for (const c of commands) {
    const r = spawnSync(process.execPath, c.argv, { cwd: ROOT, stdio: 'inherit' });
    if (r.status === 2) throw new RunError(`installing ${c.what} was refused (its message is above)`, 'fix what it names, then run `npm run rehearse` again');
    if (r.status !== 0) {
      throw new RunError(`installing ${c.what} failed (node ${c.argv.map((a) => a.replace(`${ROOT}/`, '')).join(' ')} exited ${r.status ?? r.signal})`,
        'read the log named above (.tools/logs/setup-NAME.log), fix it, then run `npm run rehearse` again');
    }
  }
}

import type { Command } from 'commander';
import { matrixFor } from '../catalog';
import { UserError } from '../core/errors';
import { installCommand } from '../core/install';
import { projectRoot } from '../core/paths';
import { setup } from '../install/setup.mjs';
import { list } from './args';

/** `s3ab setup [NAME...]`: installs methods, workloads or components (runner/install/setup.mjs, as `npm run setup` does), or what a run needs (--for-run). */
export function registerSetup(program: Command): void {
  program
    .command('setup [names...]')
    .description('install what methods, workloads or tools need (assets/install.json); --for-run: what a run with these options needs')
    .option('--for-run', 'install what `s3ab run` with the same options (--profile, --matrix, --methods, --workloads) needs')
    .option('-p, --profile <name>', 'with --for-run: the profile')
    .option('-m, --matrix <file>', 'with --for-run: the matrix file')
    .option('--methods <a,b>', 'with --for-run: only these methods', list)
    .option('--workloads <x,y>', 'with --for-run: only these workloads', list)
    .option('--quiet', 'print only what gets installed')
    .option('--verbose', 'print every installer\'s output')
    .allowUnknownOption()
    .addHelpText('after', `
Examples:
  s3ab setup mountpoint rclone        install the Mountpoint launcher and rclone
  s3ab setup --for-run --profile mounts   what the mounts profile needs`)
    .action(async (positional: string[], o) => {
      // Unknown options are allowed for --for-run only: `npm run local` passes it all of `s3ab run`'s.
      const unknown = positional.filter((n) => n.startsWith('-'));
      if (unknown.length && !o.forRun) throw new UserError(`unknown option ${unknown.join(' ')}`, 'see `s3ab setup --help`: names of methods, workloads or components, or --for-run with the options of `s3ab run`');
      let names = positional.filter((n) => !n.startsWith('-'));
      if (o.forRun) {
        const matrix = matrixFor({ profile: o.profile, matrixFile: o.matrix, methods: o.methods, workloads: o.workloads });
        // Optional methods are not installed for a run: they join it where they are present (S3
        // Files on AWS; s3-crt once its client is built, a cargo build of minutes the quick
        // profile's first run does not wait for), and the run names what is skipped and why.
        const wanted = [...matrix.methods.filter((m) => !m.optional).map((m) => m.name), ...matrix.workloads.map((w) => w.name)];
        names = [...new Set(wanted)].filter((n) => installCommand(n) !== null);
      }
      process.exitCode = await setup(projectRoot(), [...(o.quiet ? ['--quiet'] : []), ...(o.verbose ? ['--verbose'] : []), ...names]);
    });
}

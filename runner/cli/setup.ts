import type { Command } from 'commander';
import { matrixFor } from '../catalog';
import { UserError } from '../core/errors';
import { INSTALL } from '../core/install';
import { projectRoot } from '../core/paths';
import { runNeeds, setup } from '../install/setup.mjs';
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
        // An optional method is installed for a run only when that takes seconds (s3fs from apt),
        // and may fail (a host without apt): the run then skips it and names why. A longer one
        // (s3-crt's cargo build, minutes the quick profile's first run does not wait for) joins
        // the runs after `npm run setup -- NAME`, which the run's last lines name.
        const needs = runNeeds(INSTALL, matrix.methods.map((m) => ({ name: m.name, optional: m.optional })), matrix.workloads.map((w) => w.name));
        names = needs.required;
        if (needs.optional.length) names.push(`--optional=${needs.optional.join(',')}`);
      }
      process.exitCode = await setup(projectRoot(), [...(o.quiet ? ['--quiet'] : []), ...(o.verbose ? ['--verbose'] : []), ...names]);
    });
}

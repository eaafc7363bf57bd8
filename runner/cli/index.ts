import { Command, CommanderError } from 'commander';
import { cleanupAll, Interrupted } from '../core/cleanup';
import { ExitCode, RunError, UserError } from '../core/errors';
import { registerAdvise } from './advise';
import { registerAws } from './aws';
import { registerClean } from './clean';
import { registerFleetClient } from './fleet-client';
import { registerHistory } from './history';
import { registerList } from './list';
import { registerReport } from './report';
import { registerRun } from './run';
import { registerSetup } from './setup';
import { registerStep } from './step';

// The SDK warns on Node 20 about its releases from 2027 on; the lockfile pins this one.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The s3ab CLI: each command registers itself from its own file in runner/cli/. */
export function buildCli(): Command {
  const program = new Command('s3ab')
    .description('s3-access-bench: benchmark the ways programs reach S3 (S3 API, AWS CLI, FUSE mounts, ...) with verified data')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str) })
    // Usage errors exit 2 (bad input) with a fix line, not commander's exit 1 (see main()).
    .exitOverride();
  for (const register of [registerRun, registerStep, registerAws, registerReport, registerHistory, registerAdvise, registerList, registerSetup, registerClean, registerFleetClient]) register(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, successfully; a usage error has been printed already.
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.help') process.exitCode = 0;
      else {
        process.stderr.write('  fix: see `s3ab --help` or `s3ab COMMAND --help` for the commands, options and their values\n');
        process.exitCode = ExitCode.badInput;
      }
    } else if (err instanceof RunError) {
      process.stderr.write(`s3ab: ${err.problem}\n  fix: ${err.fix}\n`);
      process.exitCode = ExitCode.runFailed;
    } else if (err instanceof UserError) {
      process.stderr.write(`s3ab: ${err.problem}\n  fix: ${err.fix}\n`);
      process.exitCode = ExitCode.badInput;
    } else if (err instanceof Interrupted) {
      process.exitCode = ExitCode.interrupted;
    } else {
      process.stderr.write(`s3ab: unexpected error: ${(err as Error)?.stack ?? err}\n`);
      process.exitCode = ExitCode.runFailed;
    }
  } finally {
    await cleanupAll();
  }
}

if (require.main === module) {
  // `s3ab report | head`: a reader that stops early is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  // Exit once stdout has drained: process.exit drops what a pipe has not taken yet (long reports).
  void main(process.argv).then(() => process.stdout.write('', () => process.exit(process.exitCode ?? 0)));
}

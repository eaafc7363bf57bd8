/**
 * What the tsx scripts (`npm run rehearse`, `cost:aws`, `bench:*`) share on their command line: a
 * bad option or value, or a problem the user can fix (a missing tool, an unreachable endpoint),
 * prints the problem and its fix and exits 2 (1 for a run that could not finish), with no stack
 * trace; only a defect of the script itself prints its stack.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { RunError, UserError } from '../runner/core/errors';
import { parseSize } from '../runner/core/units';

/** Ends the script on an error: problem and fix for what the user can fix, the stack for a defect. */
export function failScript(name: string, err: unknown): never {
  if (err instanceof UserError || err instanceof RunError) {
    process.stderr.write(`${name}: ${err.problem}\n  fix: ${err.fix}\n`);
    process.exit(err instanceof UserError ? 2 : 1);
  }
  process.stderr.write(`${name} failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
}

/**
 * The script's options (node:util parseArgs, strict), with the named ones checked as whole numbers;
 * from here on an uncaught UserError ends the script as failScript does.
 */
export function scriptOptions<T extends NonNullable<ParseArgsConfig['options']>>(name: string, options: T, counts: (keyof T & string)[] = []) {
  process.on('uncaughtException', (err) => failScript(name, err));
  process.on('unhandledRejection', (err) => failScript(name, err));
  let values: ReturnType<typeof parseArgs<{ options: T }>>['values'];
  try {
    values = parseArgs({ options }).values;
  } catch (err) {
    // node:util names the option ("Unknown option '--bogus'"); its stack says nothing more.
    const names = Object.keys(options).map((o) => `--${o}`);
    failScript(name, new UserError((err as Error).message.split('\n')[0], names.length ? `the options are: ${names.join(', ')}` : 'it takes no options: run it without arguments'));
  }
  for (const key of counts) {
    const value = (values as Record<string, unknown>)[key];
    if (typeof value === 'string' && !/^\d+$/.test(value)) {
      failScript(name, new UserError(`--${key} ${value} is not a whole number`, `give a count, e.g. --${key} ${options[key].default ?? 5}`));
    }
  }
  return values;
}

/** A size option (512MiB, 1GiB...) in bytes; a value that is not a size ends the script as a usage error. */
export function sizeOption(name: string, flag: string, value: string): number {
  try {
    return parseSize(value);
  } catch (err) {
    failScript(name, new UserError(`--${flag}: ${(err as Error).message}`, `give a size, e.g. --${flag} 512MiB`));
  }
}

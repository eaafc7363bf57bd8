import { UserError } from '../../runner/core/errors';

/** The UserError a call throws, as "problem | fix"; fails the test when it throws none or another error. */
export function problemOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return `${(err as UserError).problem} | ${(err as UserError).fix}`;
  }
  throw new Error('expected a UserError');
}

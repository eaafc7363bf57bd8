import { InvalidArgumentError } from 'commander';
import { parseDurationS } from '../core/units';

/** Shared argument parsers of the s3ab commands. */
export const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);

/** A list that must name something: `--methods ''` is a mistake, not "the profile's defaults". */
export const nonEmptyList = (what: string) => (v: string) => {
  const items = list(v);
  if (!items.length) throw new InvalidArgumentError(`needs at least one ${what} (or leave the option out for the matrix's own)`);
  return items;
};

export const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
};

export const nonNegativeNumber = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number ≥ 0');
  return n;
};

/** A time span such as 10m, 90s, 1.5h or 600 (seconds), above zero: in seconds. */
export const duration = (v: string) => {
  const s = parseDurationS(v);
  if (s === null || !(s > 0)) throw new InvalidArgumentError('must be a time above zero: seconds, or a number with s, m (min) or h, e.g. 10m');
  return s;
};

/** Runner specs, `TYPE:COUNT,...` (COUNT defaults to 1): `c7g.large:2,m7i.large`. */
export const runnerSpecs = (v: string) => list(v).map((x) => {
  const [instanceType, n, ...rest] = x.split(':');
  const count = n === undefined ? 1 : Number(n);
  if (!instanceType || rest.length || !Number.isInteger(count) || count < 1) throw new InvalidArgumentError(`"${x}" is not TYPE:COUNT (e.g. c7g.large:2)`);
  return { instanceType, count };
});

/** Writes one line to stdout. */
export const out = (line: string) => process.stdout.write(`${line}\n`);

import Ajv, { ErrorObject } from 'ajv';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import matrixSchema from '../../assets/schema/matrix.schema.json';
import { UserError } from './errors';
import type { AdvicePriority, AdviceRequest, Matrix, MethodSpec, Need } from './matrix.generated';
import type { MethodDescriptor, Options } from './method';
import { projectRoot } from './paths';
import { expandGrid, type GridSetting } from './tune';
import { LATENCY_HELP, parseLatencyUs, parseSize } from './units';
import { MATRIX_CACHE_STATES, type MatrixCacheState } from './vocabulary';
import type { WorkloadDescriptor } from './workload';

;

/** The most clients a fleet step may have (the matrix schema's `clients` maximum). */
export const MAX_CLIENTS: number = matrixSchema.properties.clients.items.maximum;

/** One method with its variant and final options. */
export interface MethodChoice {
  name: string;
  variant: string;
  options: Options;
  /** Skipped (announced, not failed) where the method is not available on the host. */
  optional: boolean;
  /** Where the choice is one setting of an option grid (the entry's `tune`): the grid and its settings. */
  tune?: GridSetting;
}

/**
 * What a matrix is checked against: the methods' and workloads' descriptors (runner/catalog.ts),
 * never their implementations, so that checking a matrix loads no client or workload code.
 */
export interface Catalog {
  readonly methods: readonly MethodDescriptor[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly workloads: readonly WorkloadDescriptor<any>[];
}

/** A matrix after validation: defaults applied, names resolved. */
export interface ResolvedMatrix {
  name: string;
  repetitions: number;
  /** Cache states run on mount methods, in this order (cold first). */
  cache: MatrixCacheState[];
  /** Time budget of every step in seconds (matrix `budget_s`, `--step-budget`), or null for none. */
  budgetS: number | null;
  /** Fleet sizes, ascending (matrix `clients`, `s3ab run --clients`): 1 is the plain step. */
  clients: number[];
  methods: MethodChoice[];
  workloads: { name: string; params: Record<string, unknown> }[];
  /** The matrix's `advice`, resolved; null where it names none. */
  advice: ResolvedAdvice | null;
}

/**
 * What the report's Advice section is asked (matrix `advice`): the needs and limits of
 * `s3ab advise`, times in µs and ms, the priority's default applied. The run manifest records it as
 * it is, so its field names are the manifest's (snake case).
 */
export interface ResolvedAdvice {
  needs: Need[];
  priority: AdvicePriority;
  max_cost_per_million: number | null;
  p99_under_us: number | null;
  /** null: the advisor's default threshold. */
  max_delay_ms: number | null;
}

/** The pick's default priority: the schema's. */
export const DEFAULT_ADVICE_PRIORITY = matrixSchema.definitions.AdvicePriority.default as AdvicePriority;

/** One unit of work: a method running a workload once. */
export interface Step {
  index: number;
  method: MethodChoice;
  workload: { name: string; params: Record<string, unknown> };
  repetition: number;
  /** How many clients run it at once against one store (the matrix's `clients` entry; 1: a plain step). */
  clients: number;
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validateMatrixShape = ajv.compile(matrixSchema);

function profilesDir(): string {
  return join(projectRoot(), 'assets', 'profiles');
}

export function profileNames(): string[] {
  const dir = profilesDir();
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => basename(f, '.json')).sort() : [];
}

export function loadProfile(name: string): unknown {
  const names = profileNames();
  if (!names.includes(name)) {
    throw new UserError(`unknown profile "${name}"`, `use one of: ${names.join(', ')} (or --matrix FILE)`);
  }
  return JSON.parse(readFileSync(join(profilesDir(), `${name}.json`), 'utf8'));
}

export function loadMatrixFile(path: string): unknown {
  if (!existsSync(path)) throw new UserError(`matrix file ${path} does not exist`, 'check the path given to --matrix');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new UserError(`matrix file ${path} is a directory`, 'give the path of a matrix JSON file to --matrix');
    if (code === 'EACCES' || code === 'EPERM') throw new UserError(`matrix file ${path} cannot be read: permission denied`, `make it readable (chmod a+r ${path}) or copy it somewhere readable`);
    throw new UserError(`matrix file ${path} cannot be read: ${(err as Error).message}`, 'check the path given to --matrix');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`matrix file ${path} is not valid JSON: ${(err as Error).message}`, 'fix the JSON syntax (a validator such as `jq . FILE` shows where)');
  }
}

/** S3's largest object (5 TiB): a size above it cannot be stored by any method. */
const MAX_OBJECT_BYTES = 5 * 1024 ** 4;
const SIZE_UNITS_HELP = 'bytes, or a number with one of the units B, KB, MB, GB, TB (decimal) or KiB, MiB, GiB, TiB (binary), e.g. 10MiB';

/**
 * The error to report out of AJV's list. Under a `oneOf`, AJV reports every alternative's
 * complaint; the one worth naming is from the alternative the input resembles: not a bare type
 * mismatch at the oneOf's own place (that alternative is another kind of value altogether), and
 * the deepest place first.
 */
function pickSchemaError(errors: ErrorObject[]): ErrorObject {
  const oneOfPaths = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  const candidates = errors.filter((e) => e.keyword !== 'oneOf' && !(e.keyword === 'type' && oneOfPaths.has(e.instancePath)));
  const pool = candidates.length ? candidates : errors.filter((e) => e.keyword !== 'oneOf');
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  return [...(pool.length ? pool : errors)].sort((a, b) => depth(b) - depth(a))[0];
}

const isSizePattern = (e: ErrorObject) => e.keyword === 'pattern' && /\[KMGT?\]i\?B/.test(String((e.params as { pattern?: string }).pattern));
const isLatencyPattern = (e: ErrorObject) => e.keyword === 'pattern' && String((e.params as { pattern?: string }).pattern) === matrixSchema.definitions.Latency.oneOf[1].pattern;

function describeAjvError(where: string, e: ErrorObject): string {
  const field = `${where}${e.instancePath.replace(/\//g, '.')}`;
  switch (e.keyword) {
    case 'additionalProperties':
      return `${field || where} has an unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    case 'enum':
      return `${field} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'pattern':
      if (isSizePattern(e)) return `${field} is not a size: write ${SIZE_UNITS_HELP}`;
      if (isLatencyPattern(e)) return `${field} is not a time: write ${LATENCY_HELP}`;
      return `${field || where} ${e.message}`;
    default:
      return `${field || where} ${e.message}`;
  }
}

/** What to write instead, for a matrix whose shape is wrong: the valid values of the field at fault. */
function shapeFix(e: ErrorObject, catalog: Catalog): string {
  const field = e.instancePath.split('/')[1] ?? (e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : '');
  const rep = (matrixSchema.properties as Record<string, { minimum?: number; maximum?: number }>).repetitions;
  switch (field) {
    case 'methods':
      return `methods is a list of one or more of: ${catalog.methods.map((m) => m.name).join(', ')} (each a name, or {"name", "variant", "options", "optional"})`;
    case 'workloads':
      return `workloads maps one or more of ${catalog.workloads.map((w) => w.name).join(', ')} to their parameters ({} for the defaults; see \`s3ab list\`)`;
    case 'repetitions':
      return `repetitions is a whole number from ${rep.minimum} to ${rep.maximum}`;
    case 'advice':
      return `advice is {"needs": [...], "priority", "max_cost_per_million", "p99_under", "max_delay"}, as \`s3ab advise\`'s options; needs are any of: ${matrixSchema.definitions.Need.enum.join(', ')}; priority one of: ${matrixSchema.definitions.AdvicePriority.enum.join(', ')}; p99_under and max_delay ${LATENCY_HELP}`;
    case '':
      if (e.keyword === 'additionalProperties') return `a matrix has the fields ${Object.keys(matrixSchema.properties).join(', ')}`;
  }
  return 'see assets/schema/matrix.schema.json and the profiles in assets/profiles/ for the format';
}

/**
 * Validates a matrix before anything is created: its shape against assets/schema/matrix.schema.json,
 * method and workload names against the registries, each workload's parameters against its own
 * schema, and each method's variant and options. Errors name the field and the valid values.
 */
export function resolveMatrix(input: unknown, source: string, catalog: Catalog): ResolvedMatrix {
  const bad = (problem: string, fix: string) => new UserError(`${source}: ${problem}`, fix);
  const data = structuredClone(input) as Matrix;
  if (!validateMatrixShape(data)) {
    const first = pickSchemaError(validateMatrixShape.errors!);
    throw bad(describeAjvError('matrix', first), shapeFix(first, catalog));
  }
  const methods = data.methods.flatMap((spec: MethodSpec, i): MethodChoice[] => {
    const sel: Exclude<MethodSpec, string> = typeof spec === 'string' ? { name: spec } : spec;
    const def = catalog.methods.find((m) => m.name === sel.name);
    if (!def) throw bad(`methods[${i}] "${sel.name}" is not a method`, `use one of: ${catalog.methods.map((m) => m.name).join(', ')}`);
    const variant = sel.variant ?? 'default';
    const base = def.variants[variant];
    if (!base) throw bad(`methods[${i}] ${def.name} has no variant "${variant}"`, `use one of: ${Object.keys(def.variants).join(', ')}`);
    for (const key of Object.keys(sel.options ?? {})) {
      if (!(key in base)) throw bad(`methods[${i}] ${def.name} has no option "${key}"`, `its options are: ${Object.keys(base).join(', ')}`);
    }
    const choice = { name: def.name, variant, options: { ...base, ...sel.options }, optional: sel.optional ?? false };
    if (!sel.tune) return [choice];
    const grid = expandGrid(def, variant, sel.tune, sel.options ?? {}, `methods[${i}]`, sel.halving ?? true);
    if (!Array.isArray(grid)) throw bad(grid.problem, grid.fix);
    return grid.map((g) => ({ ...choice, variant: g.variant, options: { ...choice.options, ...g.membership.settings }, tune: g.membership }));
  });
  distinguishRepeatedMethods(methods, bad);
  const workloads = Object.entries(data.workloads).map(([name, params]) => {
    const def = catalog.workloads.find((w) => w.name === name);
    if (!def) throw bad(`workloads.${name} is not a workload`, `use one of: ${catalog.workloads.map((w) => w.name).join(', ')}`);
    const validate = ajv.compile(def.paramsSchema);
    const withDefaults = structuredClone(params ?? {}) as Record<string, unknown>;
    if (!validate(withDefaults)) {
      const e = pickSchemaError(validate.errors!);
      const props = Object.keys((def.paramsSchema as { properties?: object }).properties ?? {});
      throw bad(describeAjvError(`workloads.${name}`, e), isSizePattern(e) ? `sizes are ${SIZE_UNITS_HELP}` : `parameters of ${name}: ${props.join(', ')} (see \`s3ab list\`)`);
    }
    const tooLarge = oversizedParameter(def.paramsSchema, withDefaults);
    if (tooLarge) throw bad(`workloads.${name}.${tooLarge.field} is ${tooLarge.value}, above S3's largest object (5 TiB)`, 'use sizes up to 5TiB (5497558138880 bytes)');
    const invalid = def.validate?.(withDefaults);
    if (invalid) throw bad(`workloads.${name}: ${invalid.problem}`, invalid.fix);
    return { name, params: withDefaults };
  });
  // Cold before warm: a warm pass repeats on the mount the cold pass used.
  const cache = MATRIX_CACHE_STATES.filter((c) => (data.cache ?? ['cold']).includes(c));
  const clients = [...(data.clients ?? [1])].sort((a, b) => a - b);
  const advice = data.advice ? resolveAdvice(data.advice, bad) : null;
  return { name: data.name ?? source, repetitions: data.repetitions ?? 3, cache, budgetS: data.budget_s ?? null, clients, methods, workloads, advice };
}

/** The matrix's `advice` (its shape already checked): times to µs and ms; a zero time, which the pattern lets through, refused. */
function resolveAdvice(a: AdviceRequest, bad: (problem: string, fix: string) => UserError): ResolvedAdvice {
  const time = (field: 'p99_under' | 'max_delay') => {
    const v = a[field];
    if (v === undefined) return null;
    const us = parseLatencyUs(v);
    if (us === null) throw bad(`matrix.advice.${field} is ${JSON.stringify(v)}, not a time above zero`, `write ${LATENCY_HELP}`);
    return us;
  };
  const maxDelayUs = time('max_delay');
  return {
    needs: a.needs, priority: a.priority ?? DEFAULT_ADVICE_PRIORITY, max_cost_per_million: a.max_cost_per_million ?? null,
    p99_under_us: time('p99_under'), max_delay_ms: maxDelayUs === null ? null : maxDelayUs / 1000,
  };
}

/** Steps in run order: per workload, per repetition, every method in turn, so slow drift hits all methods alike. */
export function expandSteps(m: ResolvedMatrix): Step[] {
  const steps: Step[] = [];
  for (const workload of m.workloads) {
    for (let repetition = 1; repetition <= m.repetitions; repetition++) {
      // A fleet size's steps next to the single-client ones they are compared with (scaling).
      for (const clients of m.clients) {
        for (const method of m.methods) steps.push({ index: steps.length + 1, method, workload, repetition, clients });
      }
    }
  }
  return steps;
}

/**
 * Applies the CLI's --methods, --workloads, --repetitions, --cache and --step-budget to a raw matrix before validation. A
 * method named with --methods is wanted: it is never optional, so a missing one fails clearly.
 */
export function applyOverrides(raw: unknown, o: { methods?: string[]; workloads?: string[]; repetitions?: number; cache?: string[]; stepBudgetS?: number; clients?: number[] }): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const m = structuredClone(raw) as Matrix;
  if (o.methods?.length) {
    m.methods = o.methods.map((name) => {
      const [base, variant] = name.split(':');
      const existing = (m.methods ?? []).find((s) => (typeof s === 'string' ? s : s.name) === base && (!variant || (typeof s !== 'string' && s.variant === variant)));
      if (existing && !variant) return typeof existing === 'string' ? existing : { ...existing, optional: false };
      return variant ? { name: base, variant } : base;
    });
  }
  if (o.workloads?.length) {
    const current = (m.workloads ?? {}) as Record<string, object>;
    m.workloads = Object.fromEntries(o.workloads.map((name) => [name, current[name] ?? {}]));
  }
  if (o.repetitions !== undefined) m.repetitions = o.repetitions;
  if (o.cache?.length) m.cache = o.cache as Matrix['cache'];
  if (o.stepBudgetS !== undefined) m.budget_s = o.stepBudgetS;
  if (o.clients?.length) m.clients = o.clients;
  return m;
}

/**
 * A method listed twice with the same variant and options would run twice and be merged as
 * repetitions: refused. Listed twice with different options (concurrency 1 vs 16), both run, and
 * each is labelled by the options that tell them apart — `s3-api:default[concurrency=16]` — in
 * records, summary and report alike (the label is the variant every record carries).
 */
function distinguishRepeatedMethods(methods: MethodChoice[], bad: (problem: string, fix: string) => UserError): void {
  const key = (m: MethodChoice) => `${m.name}\u0000${m.variant}`;
  const groups = new Map<string, number[]>();
  methods.forEach((m, i) => groups.set(key(m), [...(groups.get(key(m)) ?? []), i]));
  for (const indices of groups.values()) {
    if (indices.length < 2) continue;
    const options = indices.map((i) => methods[i].options);
    for (let a = 0; a < indices.length; a++) {
      for (let b = a + 1; b < indices.length; b++) {
        if (JSON.stringify(options[a]) === JSON.stringify(options[b])) {
          const m = methods[indices[b]];
          throw bad(`methods[${indices[b]}] repeats methods[${indices[a]}] (${m.name}, variant ${m.variant}, the same options)`,
            'list each method variant once; to compare option sets, give the entries different "options"');
        }
      }
    }
    const differing = [...new Set(options.flatMap((o) => Object.keys(o)))].filter((k) => new Set(options.map((o) => JSON.stringify(o[k]))).size > 1);
    for (const i of indices) {
      methods[i].variant = `${methods[i].variant}[${differing.map((k) => `${k}=${methods[i].options[k]}`).join(',')}]`;
    }
  }
}

/** The first size parameter above S3's largest object, with its place and value as written. */
function oversizedParameter(schema: Record<string, unknown>, params: Record<string, unknown>): { field: string; value: string } | null {
  const props = (schema as { properties?: Record<string, { oneOf?: { pattern?: string }[]; items?: { oneOf?: { pattern?: string }[] } }> }).properties ?? {};
  const isSize = (s?: { oneOf?: { pattern?: string }[] }) => !!s?.oneOf?.some((alt) => /\[KMGT?\]i\?B/.test(alt.pattern ?? ''));
  for (const [field, s] of Object.entries(props)) {
    const value = params[field];
    const values = isSize(s) ? [value] : isSize(s.items) && Array.isArray(value) ? value : [];
    for (const [i, v] of values.entries()) {
      if ((typeof v === 'string' || typeof v === 'number') && parseSize(v) > MAX_OBJECT_BYTES) return { field: Array.isArray(value) ? `${field}[${i}]` : field, value: String(v) };
    }
  }
  return null;
}


import { applyOverrides, loadMatrixFile, loadProfile, resolveMatrix, type Catalog, type ResolvedMatrix } from './core/matrix';
import { UserError } from './core/errors';
import { METHOD_DESCRIPTORS } from './methods/catalog';
import { WORKLOAD_DESCRIPTORS } from './workloads/catalog';

/**
 * Every method and workload as descriptors: what matrices are checked against, `s3ab list` lists
 * and the report orders by. Loads no client or workload code (the Lambdas that check matrices
 * bundle this, never runner/methods/index.ts or runner/workloads/index.ts).
 */
export const CATALOG: Catalog = { methods: METHOD_DESCRIPTORS, workloads: WORKLOAD_DESCRIPTORS };

/** Where a matrix comes from and the CLI's overrides of it. */
export interface MatrixSource {
  profile?: string;
  matrixFile?: string;
  methods?: string[];
  workloads?: string[];
  repetitions?: number;
  cache?: string[];
  /** `--step-budget`: every step's time budget in seconds, over the matrix's `budget_s`. */
  stepBudgetS?: number;
  /** `--clients`: the fleet sizes, over the matrix's `clients` (1 is the plain step). */
  clients?: number[];
}

/** The matrix the options name (profile or file), overrides applied, not yet validated. Throws UserError. */
export function rawMatrixFor(opts: MatrixSource): unknown {
  if (opts.profile && opts.matrixFile) throw new UserError('--profile and --matrix were both given', 'use one of them');
  return applyOverrides(opts.matrixFile ? loadMatrixFile(opts.matrixFile) : loadProfile(opts.profile ?? 'quick'), opts);
}

/** Loads and validates the matrix the options name (profile or file, then overrides). Throws UserError. */
export function matrixFor(opts: MatrixSource): ResolvedMatrix {
  return resolveMatrix(rawMatrixFor(opts), opts.matrixFile ?? `profile ${opts.profile ?? 'quick'}`, CATALOG);
}

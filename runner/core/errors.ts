/**
 * A problem the user can fix (bad flag, bad matrix, unreachable endpoint, missing tool).
 * The CLI prints `problem` and `fix` on one line each and exits with code 2, without a stack trace.
 */
export class UserError extends Error {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem} — ${fix}`);
    this.name = 'UserError';
  }
}

/**
 * A run that could not finish for a reason the user should read, not a bug: printed as one line
 * with its fix, exit 1 (the run failed), no stack trace.
 */
export class RunError extends Error {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem} — ${fix}`);
    this.name = 'RunError';
  }
}

/** Exit codes of the s3ab CLI. */
export const ExitCode = {
  ok: 0,
  /** The run started but a step failed: results are marked incomplete. */
  runFailed: 1,
  /** Bad input: nothing was created. */
  badInput: 2,
  /** Ctrl-C or SIGTERM. */
  interrupted: 130,
} as const;

/** First line of an error's message, bounded, for the `error_sample` field and one-line messages. */
export function errorSummary(err: unknown, max = 300): string {
  const e = err as { name?: string; message?: string; Code?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  let text = e?.message ?? String(err);
  const code = e?.Code ?? e?.code ?? (e?.name && e.name !== 'Error' ? e.name : undefined);
  if (code && !text.includes(code)) text = `${code}: ${text}`;
  const status = e?.$metadata?.httpStatusCode;
  if (status && !text.includes(String(status))) text = `${text} (HTTP ${status})`;
  text = text.split('\n').find((l) => l.trim())?.trim() ?? text;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

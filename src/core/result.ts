/**
 * Expected failures are values, not exceptions (STYLE rule 3). Every refusal names its kind, which
 * maps one-to-one onto the CLI's exit codes, a stable machine-readable code, and a sentence for people.
 */

/** How a request failed: bad input (exit 2), refused by the rules (exit 3), or unknown entity (exit 4). */
export type FailureKind = 'invalid' | 'refused' | 'notFound';

export interface Failure {
  readonly ok: false;
  readonly kind: FailureKind;
  /** Stable identifier, e.g. `illegalTransition`, `staleAttempt`, `blocked`. */
  readonly code: string;
  /** One sentence a person can act on: what was wrong and what to do. */
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface Success<T> {
  readonly ok: true;
  readonly value: T;
}

export type Result<T> = Success<T> | Failure;

export function ok<T>(value: T): Success<T> {
  return { ok: true, value };
}

export function invalid(code: string, message: string, details?: Record<string, unknown>): Failure {
  return details ? { ok: false, kind: 'invalid', code, message, details } : { ok: false, kind: 'invalid', code, message };
}

export function refused(code: string, message: string, details?: Record<string, unknown>): Failure {
  return details ? { ok: false, kind: 'refused', code, message, details } : { ok: false, kind: 'refused', code, message };
}

export function notFound(what: string, id: string): Failure {
  return { ok: false, kind: 'notFound', code: `${what}NotFound`, message: `No ${what} with id '${id}'.`, details: { id } };
}

/** Exit codes of the `foreman` CLI, shared by every command. */
export const ExitCode = { ok: 0, unexpected: 1, invalid: 2, refused: 3, notFound: 4 } as const;

export function exitCodeOf(result: Result<unknown>): number {
  return result.ok ? ExitCode.ok : ExitCode[result.kind];
}

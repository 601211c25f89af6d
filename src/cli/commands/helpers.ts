import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ParsedArgv, integerFlag, parseInteger, stringFlag } from '../argv';
import type { CommandName } from '../../core/requests';
import { type Result, invalid, ok } from '../../core/result';
import type { CommandInput, RequestDraft } from './spec';

/** A draft with the absent (undefined) fields left out, so zod applies its defaults. */
export function draft(command: CommandName, args: Record<string, unknown>): Result<RequestDraft> {
  return ok({ command, args: Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined)) });
}

/** Runs builders that may fail, in order, and returns the first failure or all values. */
export function collect<T extends readonly Result<unknown>[]>(
  ...results: T
): Result<{ [K in keyof T]: T[K] extends Result<infer V> ? V : never }> {
  for (const result of results) if (!result.ok) return result;
  return ok(results.map((result) => (result as { value: unknown }).value) as { [K in keyof T]: T[K] extends Result<infer V> ? V : never });
}

/** The worker named on the command line, or the agent's own (`FOREMAN_WORKER_ID`). */
export function workerOf(input: CommandInput): Result<string> {
  const worker = input.positional['worker'] ?? input.env.workerId;
  if (worker === undefined)
    return invalid('missingArgument', 'worker: missing; name the worker (or run inside an agent, which has FOREMAN_WORKER_ID).');
  return ok(worker);
}

/**
 * `--attempt`, or the agent's own attempt (`FOREMAN_ATTEMPT`) when the request is about the
 * agent's own worker: a person naming another worker must not inherit the agent's attempt.
 */
export function attemptOf(input: CommandInput, worker: string): Result<number | undefined> {
  const given = integerFlag(input.argv, 'attempt');
  if (!given.ok || given.value !== undefined) return given;
  if (input.env.attempt === undefined || input.env.workerId !== worker) return ok(undefined);
  return parseInteger('FOREMAN_ATTEMPT', input.env.attempt);
}

/** A flag that must be present. */
export function requiredFlag(argv: ParsedArgv, name: string, what: string): Result<string> {
  const value = stringFlag(argv, name);
  return value === undefined ? invalid('missingFlag', `${name}: missing; pass --${name} <${what}>.`, { flag: name }) : ok(value);
}

/** `--paths a,b`: the comma-separated values of a flag, trimmed, empty ones dropped; undefined without the flag. */
export function listFlag(argv: ParsedArgv, name: string): string[] | undefined {
  const value = stringFlag(argv, name);
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);
}

/** A positional the spec marks required; the parser guarantees it, this narrows the type. */
export function required(input: CommandInput, name: string): string {
  const value = input.positional[name];
  if (value === undefined) throw new Error(`positional '${name}' was declared required but is missing`);
  return value;
}

/** A file named on the command line, read relative to the current folder. */
export function readTextFile(field: string, file: string, cwd: string): Result<string> {
  try {
    return ok(fs.readFileSync(path.resolve(cwd, file), 'utf8'));
  } catch (error) {
    return invalid(
      'unreadableFile',
      `${field}: cannot read '${file}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      { file },
    );
  }
}

/**
 * From argv to a command: the steps the full CLI (main.ts) and the thin one (thin.ts) share, so
 * that both read a command line the same way. Node built-ins only: no zod, no store.
 */
import { type FlagSpec, type ParsedArgv, globalFlags, nextToken } from './argv';
import { type CliEnvironment, type CommandSpec, isMutating, usageOf } from './commands/spec';
import { type Result, invalid, ok } from '../core/result';

/** Values of these flags may come before the command words (`foreman --dir x status`). */
const leadingValueFlags = new Set(['--dir', '--request-id']);

export function readEnvironment(env: NodeJS.ProcessEnv): CliEnvironment {
  // An empty variable counts as unset, so `FOREMAN_DIR= foreman status` means the default.
  const pick = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const dir = pick('FOREMAN_DIR');
  const workerId = pick('FOREMAN_WORKER_ID');
  const attempt = pick('FOREMAN_ATTEMPT');
  const endpoint = pick('FOREMAN_ENDPOINT');
  const token = pick('FOREMAN_TOKEN');
  return {
    ...(dir !== undefined ? { dir } : {}),
    ...(workerId !== undefined ? { workerId } : {}),
    ...(attempt !== undefined ? { attempt } : {}),
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(token !== undefined ? { token } : {}),
    debug: env['FOREMAN_DEBUG'] === '1',
  };
}

/**
 * Takes the command words ("worker add") out of argv, wherever the leading global flags put them.
 * `groups` are the first words that need a second one ("worker").
 */
export function splitCommand(argv: readonly string[], groups: ReadonlySet<string>): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  const tokens = argv.values();
  for (const token of tokens) {
    const first = words[0];
    const wanted = first === undefined || (words.length === 1 && groups.has(first));
    if (token === '--') {
      rest.push(token, ...tokens);
      break;
    }
    if (token.startsWith('-') || !wanted) {
      rest.push(token);
      const value = words.length === 0 && leadingValueFlags.has(token) ? nextToken(tokens) : undefined;
      if (value !== undefined) rest.push(value);
      continue;
    }
    words.push(token);
  }
  return { words, rest };
}

/** The flags a command takes: its own, the global ones, and `--request-id` when it changes state. */
export function flagsOf(spec: CommandSpec): FlagSpec {
  return { ...globalFlags, ...spec.flags, ...(isMutating(spec) ? { 'request-id': 'string' as const } : {}) };
}

/** Maps positionals onto the names the spec declares; too few or too many is a usage error. */
export function namePositionals(spec: CommandSpec, argv: ParsedArgv): Result<Record<string, string | undefined>> {
  const names = spec.positionals ?? [];
  const named: Record<string, string | undefined> = {};
  for (const [index, declared] of names.entries()) {
    const optional = declared.endsWith('?');
    const name = optional ? declared.slice(0, -1) : declared;
    const value = argv.positionals[index];
    if (value === undefined && !optional)
      return invalid('missingArgument', `${name}: missing; usage: ${usageOf(spec)}`, { argument: name });
    named[name] = value;
  }
  const extra = argv.positionals[names.length];
  if (extra !== undefined)
    return invalid('unexpectedArgument', `unexpected argument '${extra}'; usage: ${usageOf(spec)}`, { argument: extra });
  return ok(named);
}

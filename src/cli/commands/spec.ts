import type { FlagSpec, ParsedArgv } from '../argv';
import { readOnlyCommands } from '../../core/readCommands';
import type { CommandName } from '../../core/requests';
import type { Result } from '../../core/result';

/** What the CLI hands to the engine: a command and its arguments, before `parseRequest`. */
export interface RequestDraft {
  readonly command: CommandName;
  readonly args: Record<string, unknown>;
}

/** The environment variables the CLI honours (agents are launched with them). */
export interface CliEnvironment {
  /** Stands in for `--dir`. */
  readonly dir?: string;
  /** The worker an agent runs as: the default worker of heartbeat/submit/fail, and the actor. */
  readonly workerId?: string;
  /** The agent's attempt: the default `--attempt` of heartbeat/submit/fail for that worker. */
  readonly attempt?: string;
  /** An owner's socket and token, for agents running outside the repository. */
  readonly endpoint?: string;
  readonly token?: string;
  readonly debug: boolean;
}

export interface CommandInput {
  readonly argv: ParsedArgv;
  /** Positionals by the names the spec declares. */
  readonly positional: Readonly<Record<string, string | undefined>>;
  readonly env: CliEnvironment;
  readonly cwd: string;
}

interface SpecBase {
  /** The words that select it: "worker add", "status". */
  readonly name: string;
  /** Arguments and flags after the name, for help and usage errors. */
  readonly usage: string;
  readonly summary: string;
  readonly flags?: FlagSpec;
  /** Positional names, in order; a trailing `?` marks an optional one. */
  readonly positionals?: readonly string[];
}

/** A command the engine executes (routed to the owner, or run here under the lock). */
export interface EngineCommand extends SpecBase {
  readonly kind: 'engine';
  build(input: CommandInput): Result<RequestDraft>;
}

/** A command the CLI carries out itself (init, serve, validate-transitions, help). */
export interface LocalCommand extends SpecBase {
  readonly kind: 'local';
  /** Resolves to the exit code. */
  run(input: CommandInput): Promise<number>;
}

export type CommandSpec = EngineCommand | LocalCommand;

/** Whether a command changes state (and so takes `--request-id`): what the request contract does not list as read-only. */
export function isMutating(spec: CommandSpec): boolean {
  if (spec.kind !== 'engine') return false;
  const command = spec.name.replace(' ', '.');
  return !readOnlyCommands.has(command as CommandName);
}

/** The first words of the table's two-word commands ("worker", "plan"). */
export function groupsOf(table: readonly CommandSpec[]): ReadonlySet<string> {
  return new Set(table.filter((spec) => spec.name.includes(' ')).map((spec) => spec.name.slice(0, spec.name.indexOf(' '))));
}

export function usageOf(spec: CommandSpec): string {
  return `foreman ${spec.name}${spec.usage ? ` ${spec.usage}` : ''}`;
}

import { z } from 'zod';
import { describeIssues } from './zodIssues';
import { agentContracts } from './requests/agents';
import { messageContracts } from './requests/messages';
import { overlapContracts } from './requests/overlaps';
import { readContracts } from './requests/reads';
import { reviewContracts } from './requests/review';
import { taskContracts } from './requests/tasks';
import { workerContracts } from './requests/workers';

/**
 * Every request the engine takes, from the CLI, the local endpoint or the VS Code host, and what it
 * answers. Each command group (`./requests/<group>.ts`) holds its request schemas beside their
 * answers' schemas; both ends parse requests with them, and the answers' types are derived from
 * them (`ResultOf`). Answer schemas are strict: the contract test (test/unit/core/answers.test.ts)
 * parses every answer a real engine gives with its schema.
 */

export { chainStepSchema, type ChainStep } from './requests/fields';
export { type MergeReport } from './requests/review';

const contracts = {
  ...workerContracts,
  ...taskContracts,
  ...reviewContracts,
  ...agentContracts,
  ...messageContracts,
  ...readContracts,
  ...overlapContracts,
};
type Contracts = typeof contracts;

export type CommandName = keyof Contracts;
export const commandNames = Object.keys(contracts) as CommandName[];
export type CommandArgs<C extends CommandName> = z.output<Contracts[C]['request']>;
export type CommandInput<C extends CommandName> = z.input<Contracts[C]['request']>;
/** The value a successful `command` answers, derived from its answer schema. */
export type ResultOf<C extends CommandName> = z.infer<Contracts[C]['answer']>;

/** The zod schema of a command's arguments: what other doors (the MCP server) show and parse with. */
export function argsSchemaOf<C extends CommandName>(command: C): Contracts[C]['request'] {
  return contracts[command].request;
}

/** The zod schema of a command's answer: what a successful request returns, checked in the contract test. */
export function answerSchemaOf<C extends CommandName>(command: C): Contracts[C]['answer'] {
  return contracts[command].answer;
}

export { readOnlyCommands, type ReadCommand } from './readCommands';

/** One command's request. Code generic in the command takes this: its `command` is exactly `C`. */
export interface RequestOf<C extends CommandName> {
  readonly command: C;
  readonly args: CommandArgs<C>;
  /** Idempotency key (seed 004 §3): the same id twice applies once and returns the first result. */
  readonly requestId?: string;
  /** Who asked: "cli", "vscode", a worker id… recorded in the audit log. */
  readonly actor: string;
}

/** A parsed request; without a type argument, the union of every command's request (narrow on `command`). */
export type Request<C extends CommandName = CommandName> = C extends CommandName ? RequestOf<C> : never;

/** What a caller writes before parsing: defaults not yet applied, no actor. */
export type RequestInput<C extends CommandName = CommandName> = C extends CommandName
  ? { readonly command: C; readonly args: CommandInput<C>; readonly requestId?: string }
  : never;

const envelopeSchema = z.object({
  command: z.enum(commandNames as [CommandName, ...CommandName[]], { message: `unknown command; known: ${commandNames.join(', ')}` }),
  args: z.unknown().default({}),
  requestId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'a request id is 1-128 letters, digits or . _ : -')
    .optional(),
  actor: z
    .string()
    .regex(/^[A-Za-z0-9._:@-]{1,64}$/, 'an actor is 1-64 safe characters')
    .default('cli'),
});

export type ParsedRequest = { ok: true; request: Request } | { ok: false; message: string };

/** Parses anything that claims to be a request, at every boundary. */
export function parseRequest(input: unknown): ParsedRequest {
  const envelope = envelopeSchema.safeParse(input);
  if (!envelope.success) return { ok: false, message: describeIssues(envelope.error) };
  const { command, args, requestId, actor } = envelope.data;
  const parsedArgs = contracts[command].request.safeParse(args);
  if (!parsedArgs.success) return { ok: false, message: `${command}: ${describeIssues(parsedArgs.error)}` };
  const request = { command, args: parsedArgs.data, actor, ...(requestId ? { requestId } : {}) } as Request;
  return { ok: true, request };
}

/** `parseRequest` for a command the caller names: the parsed request is that command's. */
export function parseCommand<C extends CommandName>(
  command: C,
  args: CommandInput<C>,
  envelope: { readonly actor?: string; readonly requestId?: string } = {},
): { ok: true; request: RequestOf<C> } | { ok: false; message: string } {
  const parsed = parseRequest({ ...envelope, command, args });
  // parseRequest parsed `args` with this very command's schema.
  return parsed.ok ? { ok: true, request: parsed.request as RequestOf<C> } : parsed;
}

/**
 * The board's tools as MCP shows them: each one is an engine command, and its input schema is that
 * command's own zod schema from the request contract (src/core/requests.ts) turned into JSON
 * Schema, so what a model is told to send is what the engine takes. The arguments are parsed with
 * the same schema when the call comes (parseRequest), so a bad argument is refused in the engine's
 * words. One tool is not a command of its own: `chain_add_markdown` reads a markdown checklist as
 * `foreman chain add --from file.md` does, and sends the `chain.add` it makes.
 */
import { z } from 'zod';
import { parseChecklist } from '../../core/checklist';
import { readOnlyCommands } from '../../core/readCommands';
import { type CommandName, argsSchemaOf } from '../../core/requests';
import { describeIssues } from '../../core/zodIssues';
import { type Result, invalid, ok } from '../../core/result';

/** One MCP tool: its name, what it tells the model, and the engine command it sends. */
export interface BoardTool {
  readonly name: string;
  readonly description: string;
  readonly command: CommandName;
  /** The arguments' schema, when it is not the command's own (the markdown chain). */
  readonly input?: z.ZodType;
  /** From the tool's arguments (checked with `input`) to the command's, not yet parsed by the engine. */
  readonly toArgs?: (input: unknown) => Result<Record<string, unknown>>;
}

const markdownChainSchema = z.strictObject({
  markdown: z.string().min(1, 'the checklist must not be empty').max(1_000_000, 'a checklist is at most 1,000,000 characters'),
  /** The chain's name; default: the checklist's first heading. */
  name: z.string().optional(),
});

/** The markdown checklist as `chain.add`'s arguments, named by its heading unless a name is given. */
function chainFromMarkdown(input: unknown): Result<Record<string, unknown>> {
  const parsed = markdownChainSchema.safeParse(input);
  if (!parsed.success) return invalid('invalidRequest', `chain_add_markdown: ${describeIssues(parsed.error)}`);
  const chain = parseChecklist(parsed.data.markdown);
  if (!chain.ok) return invalid(chain.code, `markdown: ${chain.message}`);
  const name = parsed.data.name ?? chain.value.name;
  if (name === undefined) return invalid('missingArgument', 'name: missing; give a name, or start the checklist with a "# heading".');
  return ok({ name, steps: chain.value.steps });
}

/** The tools, in the order a client lists them. */
export const boardTools: readonly BoardTool[] = [
  {
    name: 'status',
    command: 'status',
    description:
      'The board: every worker (state, task, activity, a question it waits on) and the tasks (status, blocked by, attempts). Pass `limit` on a long history.',
  },
  { name: 'worker_list', command: 'worker.list', description: 'The workers and their states.' },
  {
    name: 'task_add',
    command: 'task.add',
    description:
      'Queue a task. `after`: blocked until that task is Done; `manual`: never dispatched by itself; `planFirst`: its agent plans and waits for approval.',
  },
  {
    name: 'chain_add',
    command: 'chain.add',
    description: 'A chain: a parent task with ordered steps, each blocked on the one before, the first queued at once.',
  },
  {
    name: 'chain_add_markdown',
    command: 'chain.add',
    description:
      'A chain from a markdown checklist (`- [ ] title` items; the lines under an item are its prompt; the first `# heading` names it unless `name` is given).',
    input: markdownChainSchema,
    toArgs: chainFromMarkdown,
  },
  { name: 'plan_start', command: 'plan.start', description: 'Put a task in planning: it collects child tasks until finalized.' },
  { name: 'plan_add', command: 'plan.add', description: 'Add the next child task to a task in planning.' },
  {
    name: 'plan_finalize',
    command: 'plan.finalize',
    description: 'Queue the first child of a planning task and chain the rest behind it.',
  },
  { name: 'assign', command: 'assign', description: 'Give an idle worker a task now (it starts the agent).' },
  {
    name: 'history',
    command: 'transitions',
    description: "The audit log: every state change, oldest first; `entity` (a task's or worker's id) narrows it to one.",
  },
  {
    name: 'answer',
    command: 'answer',
    description: "Answer a worker whose agent waits for a person (a permission, a plan): 'allow' or 'deny', with an optional note.",
  },
];

/** The idempotency key every state-changing tool takes, as `--request-id` does on the command line. */
const requestIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'a request id is 1-128 letters, digits or . _ : -')
  .describe('Idempotency key: a call repeated with the same id applies once and answers as the first did.');

export function changesState(tool: BoardTool): boolean {
  return !readOnlyCommands.has(tool.command);
}

/** The JSON Schema a client is shown: the command's zod schema as input (defaults optional), plus `requestId`. */
export function inputSchemaOf(tool: BoardTool): { type: 'object'; [key: string]: unknown } {
  const json = jsonSchemaOf(tool.input ?? argsSchemaOf(tool.command));
  if (!changesState(tool)) return { ...json, type: 'object' };
  const properties = { ...(json['properties'] as Record<string, unknown> | undefined), requestId: jsonSchemaOf(requestIdSchema) };
  return { ...json, type: 'object', properties };
}

/** A schema as its input side (fields with defaults optional), without the `$schema` dialect line clients do not need. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json: Record<string, unknown> = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  delete json['$schema'];
  return json;
}

export function findTool(name: string): BoardTool | undefined {
  return boardTools.find((tool) => tool.name === name);
}

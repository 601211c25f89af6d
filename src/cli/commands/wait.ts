/**
 * `foreman wait <worker> --state <state>[,<state>…] [--timeout <seconds>]`: blocks until the worker
 * is in one of the states, so a script (or the README's walkthrough) can approve right after the
 * agent submits instead of being refused while it still works. It asks the owner (or the store)
 * for the workers twice a second; progress goes to stderr, the answer to stdout.
 */
import { z } from 'zod';
import { stringFlag } from '../argv';
import { type Printer, printFailure, processPrinter } from '../format';
import { resolveTarget, route } from '../route';
import { duration } from '../table';
import { workerIdSchema } from '../../core/ids';
import type { Request } from '../../core/requests';
import { ExitCode, type Failure, type Result, invalid, notFound, ok, refused } from '../../core/result';
import { WorkerState, workerStates } from '../../core/workerMachine';
import type { WorkerStatus } from '../../engine/statusView';
import { systemClock } from '../../engine/ports';
import { workerOf } from './helpers';
import type { CommandInput, CommandSpec } from './spec';

/** Ten minutes: longer than a small task takes, shorter than a forgotten terminal. */
const defaultTimeoutSeconds = 600;
const pollEveryMs = 500;
/** A "still waiting" line this often, so a long wait does not look like a hang. */
const reminderEveryMs = 30_000;

const waitArgsSchema = z.object({
  worker: workerIdSchema,
  states: z
    .array(z.enum(workerStates, { message: `a state is one of ${workerStates.map((state) => state.toLowerCase()).join(', ')}` }))
    .min(1, 'name at least one state'),
  timeoutSeconds: z
    .number({ message: 'expected a number of seconds' })
    .int('whole seconds')
    .min(0, '0 (no limit) or more seconds')
    .max(86_400, 'at most 86400 seconds (a day)'),
});
type WaitArgs = z.infer<typeof waitArgsSchema>;
/** Errors name what the person typed, not the schema's fields. */
const flagNames: Readonly<Record<string, string>> = { worker: 'worker', states: 'state', timeoutSeconds: 'timeout' };

/** `in_review,approved` and `IN-REVIEW` both name states: people type them as they like. */
function parseArgs(input: CommandInput): Result<WaitArgs> {
  const states = stringFlag(input.argv, 'state');
  if (states === undefined)
    return invalid('missingFlag', 'state: missing; pass --state <state>, e.g. --state in_review.', { flag: 'state' });
  const worker = workerOf(input);
  if (!worker.ok) return worker;
  const timeout = stringFlag(input.argv, 'timeout');
  const parsed = waitArgsSchema.safeParse({
    worker: worker.value,
    states: states.split(',').map((state) => state.trim().toUpperCase().replace(/-/g, '_')),
    timeoutSeconds: timeout === undefined ? defaultTimeoutSeconds : /^-?\d+(\.\d+)?$/.test(timeout) ? Number(timeout) : timeout,
  });
  if (parsed.success) return ok(parsed.data);
  const issue = parsed.error.issues[0];
  const field = flagNames[String(issue?.path[0])] ?? 'arguments';
  return invalid('invalidArgument', `${field}: ${issue?.message ?? 'invalid'}.`, { field });
}

function describe(worker: WorkerStatus): string {
  const task = worker.taskId ? ` on ${worker.taskId}` : '';
  return `${worker.id} is ${worker.state}${task} (${worker.liveness} ${worker.livenessReason})`;
}

async function wait(input: CommandInput, printer: Printer = processPrinter): Promise<number> {
  const json = input.argv.flags.get('json') === true;
  const args = parseArgs(input);
  if (!args.ok) return printFailure(printer, args, json);
  const { worker: workerId, states, timeoutSeconds } = args.value;
  const request: Request<'worker.list'> = { command: 'worker.list', args: {}, actor: 'cli' };
  const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
  const wanted = states.join(' or ');
  const started = Date.now();
  let lastSeen = '';
  let lastReminder = started;
  for (;;) {
    const listed = await route(target, request, { log: (line) => printer.err(`foreman: ${line}`) });
    if (!listed.ok) return printFailure(printer, listed, json);
    const worker = listed.value.find((candidate) => candidate.id === workerId);
    if (!worker) return printFailure(printer, notFound('worker', workerId), json);
    if ((states as readonly string[]).includes(worker.state)) {
      printer.out(json ? JSON.stringify(worker) : describe(worker));
      return ExitCode.ok;
    }
    const failed = dead(worker, states);
    if (failed) return printFailure(printer, failed, json);
    const now = Date.now();
    const seen = `${worker.state} ${worker.taskId ?? ''}`;
    if (seen !== lastSeen || now - lastReminder >= reminderEveryMs) {
      printer.err(`foreman: waiting for ${wanted}: ${describe(worker)}, ${duration(now - started)} so far`);
      lastSeen = seen;
      lastReminder = now;
    }
    if (timeoutSeconds > 0 && now - started >= timeoutSeconds * 1000) {
      return printFailure(
        printer,
        refused(
          'timedOut',
          `${workerId} did not reach ${wanted} within ${timeoutSeconds} s (it is ${worker.state}); wait longer with --timeout <seconds>.`,
          {
            state: worker.state,
          },
        ),
        json,
      );
    }
    await systemClock.sleep(pollEveryMs);
  }
}

/** A FAILED worker holds its task until a person resets or retries it: waiting on would only time out. */
function dead(worker: WorkerStatus, states: readonly string[]): Failure | undefined {
  if (worker.state !== WorkerState.Failed || states.includes(WorkerState.Failed)) return undefined;
  const reason = worker.lastError ? `: ${worker.lastError}` : '';
  return refused(
    'workerFailed',
    `${worker.id} FAILED${reason}; see \`foreman status\`, then \`foreman retry <task>\` or \`foreman reset ${worker.id}\`.`,
    {
      state: worker.state,
    },
  );
}

export const waitCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'wait',
    usage: '<worker> --state <state>[,<state>…] [--timeout <seconds>]',
    summary: `wait until the worker is in one of the states (e.g. in_review); exit 3 when it FAILED or after --timeout (default ${defaultTimeoutSeconds} s; 0: no limit)`,
    positionals: ['worker?'],
    flags: { state: 'string', timeout: 'string' },
    run: (input) => wait(input),
  },
];

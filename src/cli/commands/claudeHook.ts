/**
 * `foreman hook claude`: run by Claude Code's hooks with the payload on stdin (ARCHITECTURE §6).
 * A tool call, the end of a turn: a heartbeat with that activity. A tool call the worker's
 * allow-list does not cover (PreToolUse): the worker waits for a person — needs-input in every
 * view — and the hook prints the person's answer as Claude Code's permission decision.
 *
 * A hook must never get in the agent's way by accident: whatever goes wrong here is said on stderr
 * and the exit is 0 (Claude Code reads exit 2 of PreToolUse as "block the tool").
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describeTool, toolDetail } from '../../core/agentEvents';
import { readClaudeHook } from '../../core/claudeHook';
import { allowedToolsVariable, claudeGateVariable, parseGate, permissionDecision } from '../../core/claudePermissions';
import { parseRequest } from '../../core/requests';
import { ExitCode } from '../../core/result';
import { systemClock } from '../../engine/ports';
import { stringFlag } from '../argv';
import { hookRoute, sandboxedAllow } from '../hookGate';
import { readHookInput } from '../hookInput';
import { resolveTarget, route } from '../route';
import { attemptOf, workerOf } from './helpers';
import type { CommandInput, CommandSpec } from './spec';
import { isAlive } from '../../host/infraParts';

/** How often a waiting hook asks whether a person answered. */
const answerPollMs = 500;
/** How long a tool call waits for a person before it is denied (the hook's own timeout is longer). */
const defaultAnswerWaitMs = 30 * 60_000;

const receiptSchema = z.object({ answer: z.enum(['allow', 'deny']).nullable().optional() });

function say(line: string): void {
  process.stderr.write(`foreman hook: ${line}\n`);
}

export async function runClaudeHook(input: CommandInput): Promise<number> {
  if (input.positional['agent'] !== 'claude') {
    say(`'${input.positional['agent'] ?? ''}' is not a hook source Foreman reads; use 'claude'.`);
    return ExitCode.invalid;
  }
  const worker = workerOf(input);
  const attempt = worker.ok ? attemptOf(input, worker.value) : worker;
  if (!worker.ok || !attempt.ok) {
    say(`${!worker.ok ? worker.message : !attempt.ok ? attempt.message : ''} (run by Foreman's Claude Code settings only)`);
    return ExitCode.ok;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(readHookInput());
  } catch (error) {
    say(`stdin is not JSON (${(error as Error).message}); Claude Code sends its hook payload there.`);
    return ExitCode.ok;
  }
  const signal = readClaudeHook(payload);
  if (!signal.ok) {
    say(signal.message);
    return ExitCode.ok;
  }
  const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
  const heartbeat = async (fields: Record<string, string>) => {
    const request = parseRequest({
      command: 'heartbeat',
      args: { worker: worker.value, status: 'working', ...(attempt.value === undefined ? {} : { attempt: attempt.value }), ...fields },
      actor: worker.value,
    });
    if (!request.ok) return say(request.message);
    const result = await route(target, request.request, { log: say });
    if (!result.ok) return say(result.message);
    return receiptSchema.safeParse(result.value).data?.answer ?? undefined;
  };
  const gated = hookRoute(payload, parseGate(process.env[claudeGateVariable] ?? process.env[allowedToolsVariable]));
  if (gated.route === 'pass' || gated.route === 'sandboxed') {
    await heartbeat({ ...signal.signal });
    if (gated.route === 'sandboxed') process.stdout.write(`${sandboxedAllow}\n`);
    return ExitCode.ok;
  }
  const described = describeTool(gated.call.tool, toolDetail(gated.call.input), 300);
  if (gated.route === 'deny') {
    await heartbeat({ activity: `refused ${described}: ${gated.reason}` });
    process.stdout.write(`${permissionDecision('deny', gated.reason)}\n`);
    return ExitCode.ok;
  }
  const answer = await askPerson(`permission to use ${described}`, heartbeat);
  process.stdout.write(`${permissionDecision(answer.answer, answer.reason)}\n`);
  return ExitCode.ok;
}

/** The parent of a process, from /proc (Linux); undefined elsewhere or when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(parent) && parent > 1 ? parent : undefined;
  } catch {
    return undefined;
  }
}

async function askPerson(
  question: string,
  heartbeat: (fields: Record<string, string>) => Promise<'allow' | 'deny' | undefined | void>,
): Promise<{ answer: 'allow' | 'deny'; reason: string }> {
  const waitMs = Number(process.env['FOREMAN_ANSWER_WAIT_MS']) || defaultAnswerWaitMs;
  const deadline = Date.now() + waitMs;
  // Claude Code runs the hook through a shell: once the shell or Claude Code is gone (stopped, its
  // owner killed), nobody needs the answer, and a hook left polling would outlive them.
  const shell = process.ppid;
  const agent = parentOf(shell);
  await heartbeat({ needsInput: question });
  while (Date.now() < deadline) {
    if (process.ppid !== shell || (agent !== undefined && !isAlive(agent))) return { answer: 'deny', reason: 'the agent is gone' };
    await systemClock.sleep(answerPollMs);
    const answer = await heartbeat({});
    if (answer === 'allow') return { answer, reason: 'allowed by a person through Foreman' };
    if (answer === 'deny') return { answer, reason: 'denied by a person through Foreman; do without this tool call' };
  }
  await heartbeat({ activity: `no answer to: ${question}` });
  return { answer: 'deny', reason: `no one answered within ${waitInWords(waitMs)}; do without this tool call` };
}

/** How long a person was given to answer, as said to the agent: "30 min", "1.5 min", "45 s", "250 ms". */
export function waitInWords(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.round(ms / 6_000) / 10} min`;
}

/** What Claude Code's hooks run (the settings Foreman generates for it). */
export const hookCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'hook',
    usage: 'claude  (hook payload JSON on stdin; FOREMAN_WORKER_ID and FOREMAN_ATTEMPT from the agent)',
    summary:
      "report a Claude Code hook (tool call, turn end) as the worker's heartbeat; ask a person for a tool call the allow-list does not cover",
    positionals: ['agent'],
    run: (input) => runClaudeHook(input),
  },
];

import { integerFlag, numberFlag, stringFlag } from '../argv';
import { attemptOf, collect, draft, required, workerOf } from './helpers';
import type { CommandSpec } from './spec';

/**
 * How agents report what Foreman cannot see from outside: `foreman usage` (tokens, cost, session)
 * for any agent that can run a command, `foreman answer` for a person replying to a waiting
 * agent, `foreman tell` / `foreman interrupt` for a person talking to a running one. `foreman hook claude`, what Claude Code's hooks run, is in claudeHook.ts.
 */
export const agentReportCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'answer',
    usage: '<worker> allow|deny [--note <text>]',
    summary:
      'answer a worker that waits for you (a tool call its allow-list does not cover, a plan to approve): let it go on, or not (--note: what to change, for a rejected plan)',
    positionals: ['worker', 'decision'],
    flags: { note: 'string' },
    build: (input) =>
      draft('answer', { worker: required(input, 'worker'), decision: required(input, 'decision'), note: stringFlag(input.argv, 'note') }),
  },
  {
    kind: 'engine',
    name: 'tell',
    usage: '<worker> <text>',
    summary: "send a message to a worker's running agent (Claude Code takes it mid-run; quote the text)",
    positionals: ['worker', 'text'],
    build: (input) => draft('tell', { worker: required(input, 'worker'), text: required(input, 'text') }),
  },
  {
    kind: 'engine',
    name: 'interrupt',
    usage: '<worker>',
    summary: "stop the current turn of a worker's agent, keeping its session; it then waits for `foreman tell`",
    positionals: ['worker'],
    build: (input) => draft('interrupt', { worker: required(input, 'worker') }),
  },
  {
    kind: 'engine',
    name: 'usage',
    usage: '[<worker>] [--input-tokens N] [--output-tokens N] [--cost-usd X] [--session <id>] [--kind <agent kind>] [--attempt N]',
    summary: "add an agent run's tokens and cost to its task attempt (Foreman reads them itself for claude and codex)",
    positionals: ['worker?'],
    flags: {
      'input-tokens': 'string',
      'output-tokens': 'string',
      'cost-usd': 'string',
      session: 'string',
      kind: 'string',
      attempt: 'string',
    },
    build: (input) => {
      const worker = workerOf(input);
      if (!worker.ok) return worker;
      const values = collect(
        integerFlag(input.argv, 'input-tokens'),
        integerFlag(input.argv, 'output-tokens'),
        numberFlag(input.argv, 'cost-usd'),
        attemptOf(input, worker.value),
      );
      if (!values.ok) return values;
      const [inputTokens, outputTokens, costUsd, attempt] = values.value;
      return draft('usage', {
        worker: worker.value,
        attempt,
        inputTokens,
        outputTokens,
        costUsd,
        sessionId: stringFlag(input.argv, 'session'),
        kind: stringFlag(input.argv, 'kind'),
      });
    },
  },
];

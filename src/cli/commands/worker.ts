import { booleanFlag, integerFlag, numberFlag, stringFlag } from '../argv';
import { attemptOf, collect, draft, listFlag, required, requiredFlag, workerOf } from './helpers';
import type { CommandSpec } from './spec';

/** A worker's lifecycle (seed 000) and its heartbeats. */
export const workerCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'worker add',
    usage: '<id> [--agent <profile>] [--max-attempts N] [--host <name>]',
    summary: "add a worker (ids: a-z 0-9 -, at most 63 characters); --host: the machine whose owner runs its agents (default: the owner's)",
    positionals: ['id'],
    flags: { agent: 'string', 'max-attempts': 'string', host: 'string' },
    build: (input) => {
      const maxAttempts = integerFlag(input.argv, 'max-attempts');
      if (!maxAttempts.ok) return maxAttempts;
      // Without --host the owner that adds it puts it on its own machine (with one owner: any machine).
      return draft('worker.add', {
        id: required(input, 'id'),
        agent: stringFlag(input.argv, 'agent'),
        maxAttempts: maxAttempts.value,
        host: stringFlag(input.argv, 'host'),
      });
    },
  },
  {
    kind: 'engine',
    name: 'worker list',
    usage: '',
    summary: 'workers with state, task, heartbeat and liveness',
    build: () => draft('worker.list', {}),
  },
  {
    kind: 'engine',
    name: 'assign',
    usage: '<worker> <task>',
    summary: 'give a task to an IDLE worker',
    positionals: ['worker', 'task'],
    build: (input) => draft('assign', { worker: required(input, 'worker'), task: required(input, 'task') }),
  },
  {
    kind: 'engine',
    name: 'claim',
    usage: '<worker>',
    summary: 'the worker takes the next runnable task (prints nothing to claim when the queue is empty)',
    positionals: ['worker'],
    build: (input) => draft('claim', { worker: required(input, 'worker') }),
  },
  {
    kind: 'engine',
    name: 'dispatch',
    usage: '',
    summary: 'hand runnable tasks to every idle worker (within the concurrency limit)',
    build: () => draft('dispatch', {}),
  },
  {
    kind: 'engine',
    name: 'start',
    usage: '<worker>',
    summary: 'ASSIGNED → WORKING',
    positionals: ['worker'],
    build: (input) => draft('start', { worker: required(input, 'worker') }),
  },
  {
    kind: 'engine',
    name: 'submit',
    usage: '[<worker>] [--summary <text>] [--attempt N]',
    summary: 'WORKING → IN_REVIEW',
    positionals: ['worker?'],
    flags: { summary: 'string', attempt: 'string' },
    build: (input) => {
      const worker = workerOf(input);
      if (!worker.ok) return worker;
      const attempt = attemptOf(input, worker.value);
      if (!attempt.ok) return attempt;
      return draft('submit', { worker: worker.value, summary: stringFlag(input.argv, 'summary'), attempt: attempt.value });
    },
  },
  {
    kind: 'engine',
    name: 'approve',
    usage: '<worker>',
    summary: 'IN_REVIEW → APPROVED',
    positionals: ['worker'],
    build: (input) => draft('approve', { worker: required(input, 'worker') }),
  },
  {
    kind: 'engine',
    name: 'request-changes',
    usage: '<worker> --note <text>',
    summary: 'IN_REVIEW → WORKING, with a note for the agent',
    positionals: ['worker'],
    flags: { note: 'string' },
    build: (input) => {
      const note = requiredFlag(input.argv, 'note', 'text');
      return note.ok ? draft('request-changes', { worker: required(input, 'worker'), note: note.value }) : note;
    },
  },
  {
    kind: 'engine',
    name: 'merge',
    usage: '<worker>',
    summary: 'APPROVED → COMPLETED: the task is Done and the worker free again',
    positionals: ['worker'],
    build: (input) => draft('merge', { worker: required(input, 'worker') }),
  },
  {
    kind: 'engine',
    name: 'send-failure',
    usage: '<task>',
    summary: "send the failed checks of a task's pull request (job names and log tails) to its agent's session (docs/handoff.md)",
    positionals: ['task'],
    build: (input) => draft('send-failure', { task: required(input, 'task') }),
  },
  {
    kind: 'engine',
    name: 'send-review',
    usage: '<task>',
    summary: "send the line comments people left on a task's pull request, not sent yet, to its agent's session (docs/handoff.md)",
    positionals: ['task'],
    build: (input) => draft('send-review', { task: required(input, 'task') }),
  },
  {
    kind: 'engine',
    name: 'cancel',
    usage: '<worker|task>',
    summary: "stop a worker's task (a worker id is looked up first, then a task id)",
    positionals: ['target'],
    build: (input) => draft('cancel', { target: required(input, 'target') }),
  },
  {
    kind: 'engine',
    name: 'fail',
    usage: '[<worker>] --reason <text> [--attempt N] [--final]',
    summary: 'end the current attempt as failed (retried while attempts remain; --final: no retry, the task fails for good)',
    positionals: ['worker?'],
    flags: { reason: 'string', attempt: 'string', final: 'boolean' },
    build: (input) => {
      const worker = workerOf(input);
      if (!worker.ok) return worker;
      const values = collect(requiredFlag(input.argv, 'reason', 'text'), attemptOf(input, worker.value));
      if (!values.ok) return values;
      const [reason, attempt] = values.value;
      return draft('fail', { worker: worker.value, reason, attempt, final: booleanFlag(input.argv, 'final') || undefined });
    },
  },
  {
    kind: 'engine',
    name: 'reset',
    usage: '<worker>',
    summary: 'FAILED or COMPLETED → IDLE',
    positionals: ['worker'],
    build: (input) => draft('reset', { worker: required(input, 'worker') }),
  },
  {
    kind: 'engine',
    name: 'heartbeat',
    usage: '[<worker>] [--status working|idle|blocked] [--progress 0..1] [--attempt N] [--activity <text>] [--touched <file>,<file>…]',
    summary: 'a sign of life from an agent (--touched: files it just edited, for the overlap check)',
    positionals: ['worker?'],
    flags: { status: 'string', progress: 'string', attempt: 'string', activity: 'string', touched: 'string' },
    build: (input) => {
      const worker = workerOf(input);
      if (!worker.ok) return worker;
      const values = collect(numberFlag(input.argv, 'progress'), attemptOf(input, worker.value));
      if (!values.ok) return values;
      const [progress, attempt] = values.value;
      return draft('heartbeat', {
        worker: worker.value,
        status: stringFlag(input.argv, 'status'),
        progress,
        attempt,
        activity: stringFlag(input.argv, 'activity'),
        touched: listFlag(input.argv, 'touched'),
      });
    },
  },
];

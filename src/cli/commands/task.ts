import { booleanFlag, integerFlag, stringFlag } from '../argv';
import { type Result, invalid, ok } from '../../core/result';
import { draft, listFlag, readTextFile, required } from './helpers';
import type { CommandInput, CommandSpec } from './spec';

/** `--prompt <text>` or `--prompt-file <f>`, never both. */
function promptOf(input: CommandInput): Result<string | undefined> {
  const text = stringFlag(input.argv, 'prompt');
  const file = stringFlag(input.argv, 'prompt-file');
  if (text !== undefined && file !== undefined) return invalid('conflictingFlags', 'prompt: give --prompt or --prompt-file, not both.');
  return file === undefined ? ok(text) : readTextFile('prompt-file', file, input.cwd);
}

/** Tasks (seed 001). */
export const taskCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'task add',
    usage:
      '<title> [--id <id>] [--prompt <text> | --prompt-file <f>] [--after <task>] [--max-attempts N] [--manual] [--plan-first] [--paths <file>,<file>…]',
    summary:
      'queue a task (--manual: never auto-dispatched; --after: blocked until that task is Done; --plan-first: the agent plans and waits for `foreman answer <worker> allow` before it changes anything; --paths: the files it is expected to touch, so the dispatcher runs it when no running task touches them)',
    positionals: ['title'],
    flags: {
      id: 'string',
      prompt: 'string',
      'prompt-file': 'string',
      after: 'string',
      'max-attempts': 'string',
      manual: 'boolean',
      'plan-first': 'boolean',
      paths: 'string',
    },
    build: (input) => {
      const prompt = promptOf(input);
      if (!prompt.ok) return prompt;
      const maxAttempts = integerFlag(input.argv, 'max-attempts');
      if (!maxAttempts.ok) return maxAttempts;
      return draft('task.add', {
        title: required(input, 'title'),
        id: stringFlag(input.argv, 'id'),
        prompt: prompt.value,
        after: stringFlag(input.argv, 'after'),
        maxAttempts: maxAttempts.value,
        manual: booleanFlag(input.argv, 'manual') || undefined,
        planFirst: booleanFlag(input.argv, 'plan-first') || undefined,
        paths: listFlag(input.argv, 'paths'),
      });
    },
  },
  {
    kind: 'engine',
    name: 'retry',
    usage: '<task>',
    summary: 'requeue a Failed or Cancelled task (an exhausted one gets one more attempt)',
    positionals: ['task'],
    build: (input) => draft('retry', { task: required(input, 'task') }),
  },
];

/** Planning: a task that collects children, then queues them as a chain. */
export const planCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'plan start',
    usage: '<parent>',
    summary: 'put a task in planning: it collects children',
    positionals: ['parent'],
    build: (input) => draft('plan.start', { parent: required(input, 'parent') }),
  },
  {
    kind: 'engine',
    name: 'plan add',
    usage: '<parent> <title> [--prompt <text> | --prompt-file <f>]',
    summary: 'add the next child to a planning task',
    positionals: ['parent', 'title'],
    flags: { prompt: 'string', 'prompt-file': 'string' },
    build: (input) => {
      const prompt = promptOf(input);
      if (!prompt.ok) return prompt;
      return draft('plan.add', { parent: required(input, 'parent'), title: required(input, 'title'), prompt: prompt.value });
    },
  },
  {
    kind: 'engine',
    name: 'plan finalize',
    usage: '<parent>',
    summary: 'queue the first child and chain the rest behind it',
    positionals: ['parent'],
    build: (input) => draft('plan.finalize', { parent: required(input, 'parent') }),
  },
];

import * as fs from 'node:fs';
import * as path from 'node:path';
import { booleanFlag, integerFlag, stringFlag } from '../argv';
import { type ParsedChain, parseChainJson, parseChecklist } from '../../core/checklist';
import { type Result, invalid, ok } from '../../core/result';
import { draft, required, requiredFlag } from './helpers';
import type { CommandInput, CommandSpec } from './spec';

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

/** `--prompt <text>` or `--prompt-file <f>`, never both. */
function promptOf(input: CommandInput): Result<string | undefined> {
  const text = stringFlag(input.argv, 'prompt');
  const file = stringFlag(input.argv, 'prompt-file');
  if (text !== undefined && file !== undefined) return invalid('conflictingFlags', 'prompt: give --prompt or --prompt-file, not both.');
  return file === undefined ? ok(text) : readTextFile('prompt-file', file, input.cwd);
}

/** A chain file: a markdown checklist (`.md`) or JSON (`.json`), by extension. */
function readChain(file: string, cwd: string): Result<ParsedChain> {
  const extension = path.extname(file).toLowerCase();
  if (extension !== '.md' && extension !== '.markdown' && extension !== '.json') {
    return invalid('badChainFile', `from: '${file}' is neither a .md checklist nor a .json file.`, { file });
  }
  const text = readTextFile('from', file, cwd);
  if (!text.ok) return text;
  const parsed = extension === '.json' ? parseChainJson(text.value) : parseChecklist(text.value);
  return parsed.ok ? parsed : invalid(parsed.code, `from: ${file}: ${parsed.message}`, { file });
}

/** Tasks (seed 001), chains and planning. */
export const taskCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'task add',
    usage: '<title> [--id <id>] [--prompt <text> | --prompt-file <f>] [--after <task>] [--max-attempts N] [--manual]',
    summary: 'queue a task (--manual: never auto-dispatched; --after: blocked until that task is Done)',
    positionals: ['title'],
    flags: { id: 'string', prompt: 'string', 'prompt-file': 'string', after: 'string', 'max-attempts': 'string', manual: 'boolean' },
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
  {
    kind: 'engine',
    name: 'chain add',
    usage: '[<name>] --from <file.md|file.json>',
    summary: "a parent with ordered children, each blocked on the one before (name: default the file's heading or name)",
    positionals: ['name?'],
    flags: { from: 'string' },
    build: (input) => {
      const file = requiredFlag(input.argv, 'from', 'file.md|file.json');
      if (!file.ok) return file;
      const chain = readChain(file.value, input.cwd);
      if (!chain.ok) return chain;
      const name = input.positional['name'] ?? chain.value.name ?? path.basename(file.value, path.extname(file.value));
      return draft('chain.add', { name, steps: chain.value.steps });
    },
  },
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

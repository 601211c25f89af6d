import * as path from 'node:path';
import { type ParsedChain, parseChainJson, parseChecklist } from '../../core/checklist';
import { type Result, invalid } from '../../core/result';
import { draft, readTextFile, requiredFlag } from './helpers';
import type { CommandSpec } from './spec';

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

/** Chains from a file: markdown-it and the chain schema load only here (not in the thin CLI). */
export const chainCommands: readonly CommandSpec[] = [
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
];

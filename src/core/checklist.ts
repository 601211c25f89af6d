import { z } from 'zod';
import { type ChainStep, chainStepSchema } from './requests';
import { type Result, invalid, ok } from './result';

export interface ParsedChain {
  /** The first `# heading`, when the document has one. */
  readonly name: string | undefined;
  readonly steps: ChainStep[];
}

const item = /^(\s*)(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)(.*)$/;
const heading = /^#{1,6}\s+(.*)$/;

/**
 * A markdown checklist as a chain, in order: every list item (`- [ ] title`, `- title`,
 * `1. title`) at the top level is a task; the lines indented under it are its prompt.
 */
export function parseChecklist(markdown: string): Result<ParsedChain> {
  const steps: Array<{ title: string; prompt: string[]; line: number }> = [];
  let name: string | undefined;
  let baseIndent: number | undefined;
  markdown.split(/\r?\n/).forEach((text, index) => {
    const match = item.exec(text);
    const indent = match ? match[1]!.length : 0;
    if (match && (baseIndent === undefined || indent <= baseIndent)) {
      baseIndent = indent;
      steps.push({ title: match[2]!.trim(), prompt: [], line: index + 1 });
      return;
    }
    const current = steps[steps.length - 1];
    if (current && (text.trim() === '' || /^\s+/.test(text))) {
      current.prompt.push(text.trim());
      return;
    }
    const title = heading.exec(text);
    if (title && name === undefined) name = title[1]!.trim();
  });
  if (steps.length === 0) return invalid('emptyChecklist', 'The checklist has no items; write one task per line as "- [ ] title".');
  const parsed: ChainStep[] = [];
  for (const step of steps) {
    const prompt = step.prompt.join('\n').trim();
    const checked = chainStepSchema.safeParse({ title: step.title, ...(prompt ? { prompt } : {}) });
    if (!checked.success) return invalid('badChecklistItem', `line ${step.line}: ${checked.error.issues[0]?.message ?? 'invalid item'}`);
    parsed.push(checked.data);
  }
  return ok({ name, steps: parsed });
}

const stepsSchema = z.array(chainStepSchema).min(1, 'a chain needs at least one task');
const chainObjectSchema = z.object({ name: z.string().optional(), tasks: stepsSchema });

/** A chain as JSON: `[{"title", "prompt"?}]` or `{"name"?, "tasks": [...]}`. */
export function parseChainJson(text: string): Result<ParsedChain> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return invalid('badJson', `The chain file is not valid JSON: ${(error as Error).message}`);
  }
  // Pick the schema by shape so an error names the exact field, not "no union member matched".
  const parsed = Array.isArray(json) ? stepsSchema.safeParse(json) : chainObjectSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(
      'badChainFile',
      `${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}; expected [{"title": "...", "prompt": "..."}] or {"tasks": [...]}`,
    );
  }
  return Array.isArray(parsed.data)
    ? ok({ name: undefined, steps: parsed.data })
    : ok({ name: parsed.data.name, steps: parsed.data.tasks });
}

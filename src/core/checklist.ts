import MarkdownIt from 'markdown-it';
import { z } from 'zod';
import { type ChainStep, chainStepSchema } from './requests';
import { type Result, invalid, ok } from './result';

export interface ParsedChain {
  /** The first top-level heading, when the document has one. */
  readonly name: string | undefined;
  readonly steps: ChainStep[];
}

/** CommonMark, so fences, nested lists and headings mean exactly what they mean in markdown. */
const markdown = new MarkdownIt('commonmark');

interface Item {
  readonly title: string;
  /** 0-based source line of the item's marker. */
  readonly first: number;
  /** The line after the item's own last line. */
  readonly end: number;
}

/**
 * A markdown checklist as a chain, in order. Every item of a top-level list (`- [ ] title`,
 * `- title`, `1. title`) is a task; its title is the item's first line. Its prompt is the rest of
 * the item (more lines, nested lists, code blocks, dedented to the item's content) and whatever
 * follows the list up to the next item or heading: an unindented code fence under an item ends the
 * list in markdown, yet a person wrote it for that item. A list line inside a fence is code.
 */
export function parseChecklist(text: string): Result<ParsedChain> {
  const lines = text.split(/\r?\n/);
  const tokens = markdown.parse(text, {});
  const items: Item[] = [];
  const boundaries: number[] = [];
  let name: string | undefined;
  tokens.forEach((token, index) => {
    if (!token.map) return;
    // Level 0 is the document's own blocks: headings outside lists, and lists outside quotes.
    if (token.type === 'heading_open' && token.level === 0) {
      boundaries.push(token.map[0]);
      name ??= tokens[index + 1]?.content.trim() || undefined;
    } else if (token.type === 'list_item_open' && token.level === 1) {
      boundaries.push(token.map[0]);
      const paragraph = tokens[index + 1]?.type === 'paragraph_open' ? tokens[index + 2] : undefined;
      items.push({ title: titleOf(paragraph?.content ?? ''), first: token.map[0], end: token.map[1] });
    }
  });
  if (items.length === 0) return invalid('emptyChecklist', 'The checklist has no items; write one task per line as "- [ ] title".');
  const steps: ChainStep[] = [];
  for (const item of items) {
    const next = boundaries.find((line) => line > item.first) ?? lines.length;
    const indent = contentIndent(lines[item.first] ?? '');
    const own = lines.slice(item.first + 1, item.end).map((line) => dedent(line, indent));
    const prompt = withoutBlankEnds([...own, ...lines.slice(item.end, next)]).join('\n');
    const checked = chainStepSchema.safeParse({ title: item.title, ...(prompt ? { prompt } : {}) });
    if (!checked.success) {
      return invalid('badChecklistItem', `line ${item.first + 1}: ${checked.error.issues[0]?.message ?? 'invalid item'}`);
    }
    steps.push(checked.data);
  }
  return ok({ name, steps });
}

/** The first line of the item's text, without a task-list box (`[ ]`, `[x]`). */
function titleOf(paragraph: string): string {
  const firstLine = paragraph.split('\n')[0] ?? '';
  return firstLine.replace(/^\[[ xX]\](?:\s+|$)/, '').trim();
}

/** The column where an item's content starts (CommonMark: after the marker and 1–4 spaces). */
function contentIndent(markerLine: string): number {
  const match = /^( *)([-*+]|\d{1,9}[.)])( *)/.exec(markerLine);
  if (!match) return 0;
  const [, indent = '', marker = '', gap = ''] = match;
  return indent.length + marker.length + (gap.length >= 1 && gap.length <= 4 ? gap.length : 1);
}

function dedent(line: string, columns: number): string {
  const leading = /^ */.exec(line)?.[0].length ?? 0;
  return line.slice(Math.min(leading, columns));
}

function withoutBlankEnds(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]?.trim() === '') start++;
  while (end > start && lines[end - 1]?.trim() === '') end--;
  return lines.slice(start, end).map((line) => line.trimEnd());
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

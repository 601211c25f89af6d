/**
 * The demo agent's script language: one directive per line, anywhere in the prompt; every other
 * line is prose and ignored. A line that starts with a directive word but has unusable arguments
 * ("exit the building") is prose too, and is reported so a typo is visible in the log.
 * Node builtins only: this file is part of the standalone demo agent.
 */

export type Directive =
  | { readonly kind: 'write' | 'append'; readonly path: string; readonly text: string }
  | { readonly kind: 'replace-line'; readonly path: string; readonly line: number; readonly text: string }
  | { readonly kind: 'commit'; readonly message: string }
  | { readonly kind: 'sleep'; readonly ms: number }
  /** Waits until a file exists (a test's signal, without guessing a time); relative paths are the worktree's. */
  | { readonly kind: 'wait-for'; readonly path: string }
  | { readonly kind: 'progress'; readonly value: number }
  | { readonly kind: 'fail'; readonly reason: string }
  | { readonly kind: 'crash' | 'hang' | 'silent' }
  | { readonly kind: 'exit'; readonly code: number };

export interface ParsedPrompt {
  readonly directives: Directive[];
  /** Lines that began with a directive word but could not be read as one. */
  readonly unreadable: string[];
}

/** The note the engine appends to the prompt when a merge conflicted. */
export const mergeConflictPrefix = 'Merge conflict in:';

const wholeNumber = /^\d+$/;

/** Splits "first rest of the line" at the first run of spaces; the rest keeps its inner spacing. */
function split(text: string): [string, string] {
  const [, first, rest = ''] = /^(\S+)(?:\s+(.*))?$/.exec(text) ?? [];
  return first === undefined ? ['', ''] : [first, rest];
}

/** One line to a directive; undefined for prose, `null` for a directive word with unusable arguments. */
export function parseDirective(rawLine: string): Directive | undefined | null {
  const [word, rest] = split(rawLine.trim());
  switch (word) {
    case 'write':
    case 'append': {
      const [path, text] = split(rest);
      return path ? { kind: word, path, text } : null;
    }
    case 'replace-line': {
      const [path, afterPath] = split(rest);
      const [line, text] = split(afterPath);
      return path && wholeNumber.test(line) && Number(line) >= 1 ? { kind: 'replace-line', path, line: Number(line), text } : null;
    }
    case 'commit':
      return { kind: 'commit', message: rest || 'demo agent commit' };
    case 'sleep':
      return wholeNumber.test(rest) ? { kind: 'sleep', ms: Number(rest) } : null;
    case 'wait-for':
      return rest.trim() ? { kind: 'wait-for', path: rest.trim() } : null;
    case 'progress': {
      const value = Number(rest);
      return rest !== '' && Number.isFinite(value) && value >= 0 && value <= 1 ? { kind: 'progress', value } : null;
    }
    case 'fail':
      return { kind: 'fail', reason: rest || 'told to fail' };
    case 'crash':
    case 'hang':
    case 'silent':
      return rest === '' ? { kind: word } : null;
    case 'exit':
      return wholeNumber.test(rest) && Number(rest) <= 255 ? { kind: 'exit', code: Number(rest) } : null;
    default:
      return undefined;
  }
}

export function parsePrompt(prompt: string): ParsedPrompt {
  const directives: Directive[] = [];
  const unreadable: string[] = [];
  for (const line of prompt.split(/\r?\n/)) {
    const directive = parseDirective(line);
    if (directive) directives.push(directive);
    else if (directive === null) unreadable.push(line.trim());
  }
  return { directives, unreadable };
}

/** True when the agent must first rebase its branch and resolve the conflicts (the engine's relaunch note). */
export function mentionsMergeConflict(prompt: string): boolean {
  return prompt.split(/\r?\n/).some((line) => line.trimStart().startsWith(mergeConflictPrefix));
}

/** The first line with text, for the default change. */
export function firstPromptLine(prompt: string): string {
  return (
    prompt
      .split(/\r?\n/)
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}

/**
 * The directives still to run on a relaunch. Steps up to and including a `commit` whose message
 * is already a commit on the branch were done by an earlier run, so they are skipped: rerunning a
 * `write` after a conflict was resolved would overwrite the resolution, and an `append` would
 * duplicate its line. Each commit on the branch accounts for one `commit` directive.
 */
export function remainingDirectives(
  directives: readonly Directive[],
  committedSubjects: readonly string[],
): { remaining: Directive[]; skipped: number } {
  const available = new Map<string, number>();
  for (const subject of committedSubjects) available.set(subject, (available.get(subject) ?? 0) + 1);
  const remaining: Directive[] = [];
  let segment: Directive[] = [];
  let skipped = 0;
  for (const directive of directives) {
    segment.push(directive);
    if (directive.kind !== 'commit') continue;
    const [subject = ''] = directive.message.split('\n');
    const count = available.get(subject) ?? 0;
    if (count > 0) {
      available.set(subject, count - 1);
      skipped += segment.length;
    } else {
      remaining.push(...segment);
    }
    segment = [];
  }
  remaining.push(...segment);
  return { remaining, skipped };
}

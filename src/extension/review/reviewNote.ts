import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Localizer } from '../localizer';

/** One thread of line comments a reviewer left on a task's changes. */
export interface LineComments {
  /** The file's path in the repository (forward slashes), as the worktree holds it. */
  readonly file: string;
  /** First and last commented line, 1-based and inclusive. */
  readonly startLine: number;
  readonly endLine: number;
  /** The thread's comments, oldest first. */
  readonly comments: readonly string[];
}

/** A thread with the code it is about, as the worktree holds it now. */
export type QuotedComments<T extends LineComments = LineComments> = T & {
  /** The commented lines; undefined when the file is gone from the worktree. */
  readonly code: readonly string[] | undefined;
};

/** The request-changes note is at most this long (the request contract's `note`). */
export const noteLimit = 10_000;
/** A long range is quoted by its head: the agent has the file, the quote only anchors the comment. */
const quotedLines = 15;
const quotedLineLength = 200;

/** A repository path the worktree can hold: relative, forward slashes, never leaving the worktree. */
export function isRepositoryPath(file: string): boolean {
  if (!file || file.includes('\\') || file.includes('\0') || path.posix.isAbsolute(file)) return false;
  return file.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** Splits a text into lines the way an editor numbers them (a final newline ends the last line). */
export function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A file of the worktree by its repository path; undefined when it is not a file there. */
export function readWorktreeFile(worktree: string, file: string): string | undefined {
  const full = path.join(worktree, ...file.split('/'));
  return fs.statSync(full, { throwIfNoEntry: false })?.isFile() ? fs.readFileSync(full, 'utf8') : undefined;
}

/** Reads the commented lines of each thread from the worktree. */
export function quoteComments<T extends LineComments>(worktree: string, threads: readonly T[]): Array<QuotedComments<T>> {
  const files = new Map<string, string[] | undefined>();
  const read = (file: string): string[] | undefined => {
    if (!files.has(file)) {
      const text = readWorktreeFile(worktree, file);
      files.set(file, text === undefined ? undefined : linesOf(text));
    }
    return files.get(file);
  };
  return threads.map((thread) => {
    if (!isRepositoryPath(thread.file)) throw new Error(`'${thread.file}' is not a path inside the repository`);
    const lines = read(thread.file);
    return { ...thread, code: lines?.slice(thread.startLine - 1, thread.endLine) };
  });
}

/** The note is too long for one request: the person sends fewer comments at a time. */
export type FormattedNote = { readonly ok: true; readonly note: string } | { readonly ok: false; readonly message: string };

/**
 * One follow-up note for the agent (in English, like the prompts Foreman writes for agents): every thread with its place, the code quoted with line numbers
 * (the agent's own edits may have moved lines since, so the quote is what anchors the comment) and
 * what the reviewer wrote.
 */
export function formatReviewNote(threads: readonly QuotedComments[], l10n: Localizer, limit = noteLimit): FormattedNote {
  if (threads.length === 0) return { ok: false, message: l10n.t('There are no open review comments to send.') };
  const sections = threads.map((thread, index) => {
    const place = thread.startLine === thread.endLine ? `line ${thread.startLine}` : `lines ${thread.startLine}-${thread.endLine}`;
    const heading = `${index + 1}. ${thread.file}, ${place}:`;
    const comments = thread.comments.map((comment) => (thread.comments.length > 1 ? `- ${comment.trim()}` : comment.trim()));
    return [heading, ...quote(thread), ...comments].join('\n');
  });
  const count = threads.length === 1 ? 'one comment' : `${threads.length} comments`;
  const note = [
    `Review of your changes: ${count} on lines of the changed files. Address each one; the code quoted is what your worktree held when the review was sent.`,
    ...sections,
  ].join('\n\n');
  if (note.length > limit) {
    return {
      ok: false,
      message: l10n.t(
        'The review is {0} characters with its quoted code; a note to the agent holds at most {1}. Send fewer comments at a time, or shorten them.',
        note.length,
        limit,
      ),
    };
  }
  return { ok: true, note };
}

function quote(thread: QuotedComments): string[] {
  if (!thread.code) return ['(the file is no longer in the worktree)'];
  if (thread.code.length === 0) return ['(these lines are no longer in the file)'];
  const width = String(thread.startLine + Math.min(thread.code.length, quotedLines) - 1).length;
  const shown = thread.code.slice(0, quotedLines).map((line, offset) => {
    const clipped = line.length > quotedLineLength ? `${line.slice(0, quotedLineLength)}…` : line;
    return `${String(thread.startLine + offset).padStart(width)} | ${clipped}`;
  });
  const more = thread.code.length - shown.length;
  return ['```', ...shown, ...(more > 0 ? [`… ${more} more line${more === 1 ? '' : 's'}`] : []), '```'];
}

import type { PullRequestInfo, ReviewCommentInfo } from './forge';
import type { GitPort } from './ports';

/**
 * The line comments people left on a pull request, as one follow-up for the agent (docs/handoff.md):
 * the same shape as VS Code's own line comments (src/extension/review/reviewNote.ts) — the place,
 * the code quoted from the task's branch, the comment — with who wrote it.
 */

/** The note to the agent holds at most this much (the request contract's `note` is 10,000). */
export const commentsNoteLimit = 9000;
const quotedLines = 15;
const quotedLineLength = 200;

/** A comment with the lines it is about, as the task's branch holds them (undefined: the file is not there). */
export type QuotedReviewComment = ReviewCommentInfo & { readonly code: readonly string[] | undefined };

/** The comments not sent yet, in the forge's order. */
export function unsentComments(comments: readonly ReviewCommentInfo[], sent: readonly string[] | undefined): ReviewCommentInfo[] {
  const known = new Set(sent ?? []);
  return comments.filter((comment) => !known.has(comment.id));
}

/** Reads each comment's lines from `branch` (the pull request's head, where the agent works). */
export async function quoteFromBranch(
  git: GitPort,
  branch: string,
  comments: readonly ReviewCommentInfo[],
): Promise<QuotedReviewComment[]> {
  const files = new Map<string, Promise<string[] | undefined>>();
  const read = (file: string) => {
    let lines = files.get(file);
    if (!lines) {
      // fileAt gives '' for a file the branch does not hold.
      lines = git.fileAt(branch, file).then(
        (text) => (text === '' ? undefined : linesOf(text)),
        () => undefined,
      );
      files.set(file, lines);
    }
    return lines;
  };
  const quoted: QuotedReviewComment[] = [];
  for (const comment of comments) {
    const lines = await read(comment.file);
    const code = lines && comment.startLine !== undefined ? lines.slice(comment.startLine - 1, comment.endLine) : lines && [];
    quoted.push({ ...comment, code });
  }
  return quoted;
}

/**
 * One note with the reviewer's own words first (`lead`, VS Code's comments) and then as many of the
 * pull request's comments as fit; `sent` are the ones it holds (the rest wait for the next send).
 */
export function commentsNote(
  pull: PullRequestInfo,
  comments: readonly QuotedReviewComment[],
  lead?: string,
): { note: string; sent: QuotedReviewComment[] } {
  const head =
    comments.length === 0
      ? ''
      : `Review comments people left on pull request #${pull.number} (${pull.url}): address each one; the code quoted is what the branch held when they were sent.`;
  const parts = [lead?.trim() ?? '', head].filter(Boolean);
  const sent: QuotedReviewComment[] = [];
  for (const comment of comments) {
    const section = sectionOf(sent.length + 1, comment);
    if ([...parts, section].join('\n\n').length > commentsNoteLimit && sent.length > 0) break;
    parts.push(section);
    sent.push(comment);
  }
  return { note: parts.join('\n\n').slice(0, commentsNoteLimit), sent };
}

function sectionOf(index: number, comment: QuotedReviewComment): string {
  const place =
    comment.startLine === undefined
      ? 'the whole file'
      : comment.startLine === comment.endLine
        ? `line ${comment.startLine}`
        : `lines ${comment.startLine}-${comment.endLine}`;
  const heading = `${index}. ${comment.file}, ${place} (${comment.author}${comment.url ? `, ${comment.url}` : ''}):`;
  return [heading, ...quote(comment), comment.body.trim()].join('\n');
}

function quote(comment: QuotedReviewComment): string[] {
  const first = comment.startLine;
  if (first === undefined) return [];
  if (!comment.code) return ['(the file is not on the branch)'];
  if (comment.code.length === 0) return ['(these lines are no longer in the file)'];
  const width = String(first + Math.min(comment.code.length, quotedLines) - 1).length;
  const shown = comment.code.slice(0, quotedLines).map((line, offset) => {
    const clipped = line.length > quotedLineLength ? `${line.slice(0, quotedLineLength)}…` : line;
    return `${String(first + offset).padStart(width)} | ${clipped.replace(/```/g, "'''")}`;
  });
  const more = comment.code.length - shown.length;
  return ['```', ...shown, ...(more > 0 ? [`… ${more} more line${more === 1 ? '' : 's'}`] : []), '```'];
}

function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

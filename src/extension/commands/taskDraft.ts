/**
 * A new task's draft: a markdown editor whose first `# heading` is the task's title and whose
 * other lines are the prompt, as many as the agent needs. No `vscode` here: the parse is tested alone.
 */

import type { Localizer } from '../localizer';

/** The line the draft opens with, telling what to do; it is never sent to the agent. */
export function draftHint(l10n: Localizer): string {
  return l10n.t(
    '<!-- Foreman: write the prompt below the title, then press "Queue Task" in the editor title bar. This line is not sent. -->',
  );
}

/** The text a new draft opens with; the title comes first, as the editor's tab is named after line 1. */
export function draftText(title: string, hint: string): string {
  return `# ${title}\n${hint}\n`;
}

/**
 * Title and prompt of a draft; the title falls back to `fallbackTitle` when the heading was removed.
 * `hint` is the one the draft opened with (`draftHint`), dropped wherever it still stands.
 */
export function parseTaskDraft(text: string, fallbackTitle: string, hint: string): { title: string; prompt: string } {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== hint);
  const headingAt = lines.findIndex((line) => line.trim() !== '');
  const heading = /^#\s+(.+?)\s*#*\s*$/.exec(lines[headingAt] ?? '');
  const body = heading ? lines.slice(headingAt + 1) : lines;
  // Inner blank lines and indentation are the author's; only the blank edges go.
  return {
    title: heading?.[1] ?? fallbackTitle,
    prompt: body
      .join('\n')
      .replace(/^\s*\n/, '')
      .trimEnd(),
  };
}

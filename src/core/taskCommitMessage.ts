/**
 * The message of a commit Foreman writes on a task's behalf (the edits its agent left
 * uncommitted, a merge or squash commit): what reaches the base reads as the task's work, titled
 * by the task and explained by the agent's own review summary, never "leftovers". The Foreman
 * trailers are added by the git layer (ARCHITECTURE §5).
 */

/** Git's own advice for a subject line, with room for a short id; longer titles are cut. */
const subjectChars = 72;
/** A summary is a few paragraphs; a log pasted as one does not belong in `git log`. */
const bodyChars = 4000;

export interface CommitTask {
  readonly id: string;
  readonly title: string;
}

/** "Add login\n\n<the agent's summary>": the subject from the title (or the id), the body when there is a summary. */
export function taskCommitMessage(task: CommitTask, summary?: string | null): string {
  const subject = oneLine(task.title) || `task ${task.id}`;
  const body = (summary ?? '').trim();
  const bounded = body.length > bodyChars ? `${body.slice(0, bodyChars - 1)}…` : body;
  return bounded ? `${subject}\n\n${bounded}` : subject;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > subjectChars ? `${line.slice(0, subjectChars - 1)}…` : line;
}

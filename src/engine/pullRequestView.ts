import { type PullRequestChecks, readChecks } from './pullRequestText';
import type { TaskViewRow } from './queries';

/** A task's pull request as `status` shows it: "in PR #12" until the forge says merged or closed. */
export interface PullRequestView {
  readonly number: number;
  readonly url: string;
  readonly state: string;
  /** The checks last read on it; absent before the first reading. */
  readonly checks?: Pick<PullRequestChecks, 'sha' | 'state' | 'failed'>;
  /** Line comments people left on it that are not sent to the agent yet; absent before the first reading. */
  readonly comments?: number;
  /** The base branch it conflicts with, while the forge says it does. */
  readonly conflict?: string;
}

export function pullRequestView(task: TaskViewRow): { pullRequest?: PullRequestView } {
  if (task.pr_number === null || task.pr_url === null) return {};
  const stored = readChecks(task.pr_checks);
  const read = stored
    ? {
        checks: { sha: stored.sha, state: stored.state, failed: stored.failed },
        ...(stored.comments !== undefined ? { comments: stored.comments } : {}),
        ...(stored.conflict ? { conflict: stored.conflict } : {}),
      }
    : {};
  return { pullRequest: { number: task.pr_number, url: task.pr_url, state: task.pr_state ?? 'open', ...read } };
}

import { type PullRequestChecks, readChecks } from './pullRequestText';
import type { TaskViewRow } from './queries';

/** A task's pull request as `status` shows it: "in PR #12" until the forge says merged or closed. */
export interface PullRequestView {
  readonly number: number;
  readonly url: string;
  readonly state: string;
  /** The checks last read on it; absent before the first reading. */
  readonly checks?: PullRequestChecks;
}

export function pullRequestView(task: TaskViewRow): { pullRequest?: PullRequestView } {
  if (task.pr_number === null || task.pr_url === null) return {};
  const checks = readChecks(task.pr_checks);
  return { pullRequest: { number: task.pr_number, url: task.pr_url, state: task.pr_state ?? 'open', ...(checks ? { checks } : {}) } };
}

import * as vscode from 'vscode';
import type { StatusSnapshot, TaskStatusView } from '../../engine/statusView';
import { pullRequestBadge } from '../../shared/pullRequestWords';

/**
 * A task's pull request in the Workers and Queue rows (docs/handoff.md): "PR #12 (checks failed)"
 * after the row's own words, and a way to open it — a Workers detail row that opens it when
 * clicked, a link in a Queue row's tooltip. Only an http(s) address is opened.
 */
type PullRequest = NonNullable<TaskStatusView['pullRequest']>;

const byTask = new WeakMap<StatusSnapshot, Map<string, PullRequest>>();

/** The pull request of `taskId` in `snapshot` (an index built once per snapshot). */
export function pullRequestOf(snapshot: StatusSnapshot, taskId: string | null): PullRequest | undefined {
  if (!taskId) return undefined;
  let index = byTask.get(snapshot);
  if (!index) {
    index = new Map(snapshot.tasks.flatMap((task) => (task.pullRequest ? [[task.id, task.pullRequest] as const] : [])));
    byTask.set(snapshot, index);
  }
  return index.get(taskId);
}

/** The row's description with the badge at its end. */
export function describeWithPullRequest(description: string, pull: PullRequest | undefined): string {
  return pull ? `${description} · ${pullRequestBadge(pull)}` : description;
}

/** Opens the pull request in the browser (VS Code's `vscode.open` hands an http(s) address to the system). */
export function openPullRequestCommand(pull: PullRequest): vscode.Command | undefined {
  if (!/^https?:\/\//.test(pull.url)) return undefined;
  return {
    command: 'vscode.open',
    title: vscode.l10n.t('Open Pull Request'),
    arguments: [vscode.Uri.parse(pull.url)],
  };
}

/** A Markdown link to it, for a tooltip. */
export function pullRequestLink(pull: PullRequest): string {
  const words = pullRequestBadge(pull).replace(/[[\]]/g, '\\$&');
  return /^https?:\/\//.test(pull.url) ? `[${words}](${pull.url.replace(/[()\s]/g, encodeURIComponent)})` : words;
}

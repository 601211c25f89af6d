import * as vscode from 'vscode';
import type { StatusSnapshot } from '../../engine/statusView';
import type { SessionRegistry } from '../sessionRegistry';
import { taskNameWithId, taskTitles } from '../taskNames';
import { type TaskReview, ThreadStatus } from './reviewStore';

/**
 * Which task's review Send Review to Agent sends (docs/vscode.md): one with open line comments, or
 * whose pull request holds comments people left there and that were not sent yet (docs/handoff.md).
 */

/** The task's open pull request, when it has one: its comments not sent yet go with the review. */
export function openPullRequest(snapshot: StatusSnapshot | undefined, taskId: string): { number: number; comments: number } | undefined {
  const pull = snapshot?.tasks.find((task) => task.id === taskId)?.pullRequest;
  return pull?.state === 'open' ? { number: pull.number, comments: pull.comments ?? 0 } : undefined;
}

/** The reviews there is something to send for; asks which when there are several. */
export async function pickReview(reviews: ReadonlyMap<string, TaskReview>, registry: SessionRegistry): Promise<string | undefined> {
  const waiting = [...reviews.entries()].filter(([, review]) => {
    if (review.threads.some((thread) => thread.status === ThreadStatus.open)) return true;
    return (openPullRequest(registry.get(review.root)?.snapshot(), review.taskId)?.comments ?? 0) > 0;
  });
  if (waiting.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Foreman: no review comments to send. Open Show Changes on a task in review and comment on its lines.'),
    );
    return undefined;
  }
  if (waiting.length === 1) return waiting[0]?.[0];
  const items = waiting.map(([key, review]) => {
    const session = registry.get(review.root);
    const label = session ? taskNameWithId(taskTitles(session.snapshot()), review.taskId) : review.taskId;
    const count = review.threads.filter((thread) => thread.status === ThreadStatus.open).length;
    const pulled = openPullRequest(session?.snapshot(), review.taskId)?.comments ?? 0;
    const description = pulled
      ? vscode.l10n.t('{0} open comment(s) and {1} on the pull request, {2}', count, pulled, review.workerId)
      : vscode.l10n.t('{0} open comment(s), {1}', count, review.workerId);
    return { label, description, key };
  });
  const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Send Review to Agent: pick a task') });
  return picked?.key;
}

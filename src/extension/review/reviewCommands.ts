import * as vscode from 'vscode';
import { CommandId } from '../commands/commandIds';
import type { SessionRegistry } from '../sessionRegistry';
import { ReviewComments } from './reviewComments';
import { ReviewStore } from './reviewStore';

/**
 * The line-comment review (docs/vscode.md, "Line comments for the agent"): the comment controller,
 * kept in the workspace state, and its commands. Show Changes tells it which diff is shown.
 */
export function registerReviewComments(
  context: Pick<vscode.ExtensionContext, 'workspaceState'>,
  registry: SessionRegistry,
  warn: (message: string) => void,
): { review: ReviewComments; disposables: vscode.Disposable[] } {
  const review = new ReviewComments(registry, new ReviewStore(context.workspaceState, warn));
  return {
    review,
    disposables: [
      review,
      vscode.commands.registerCommand(CommandId.addReviewComment, (reply: vscode.CommentReply) => review.add(reply)),
      vscode.commands.registerCommand(CommandId.discardReviewComment, (thread: vscode.CommentThread) => review.discard(thread)),
      // From the palette there is no thread: the task with open comments is picked.
      vscode.commands.registerCommand(CommandId.sendReview, (thread?: unknown) => review.send(isThread(thread) ? thread : undefined)),
    ],
  };
}

function isThread(value: unknown): value is vscode.CommentThread {
  return typeof value === 'object' && value !== null && 'uri' in value && 'comments' in value;
}

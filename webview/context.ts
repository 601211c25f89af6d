import type { ActionName, ActionTarget, DashboardSnapshot, FolderView, ViewState } from '../src/shared/protocol';

/** What every section renderer gets: the data and the ways back to the host. */
export interface RenderContext {
  readonly snapshot: DashboardSnapshot;
  readonly folder: FolderView;
  /** The host's clock now (the snapshot's clock, moved on by the time since it arrived). */
  hostNow(): number;
  act(action: ActionName, target: ActionTarget): void;
  /** Whether an action on this target is waiting for the host's answer. */
  isPending(action: ActionName, target: ActionTarget): boolean;
  setView(patch: Partial<ViewState>): void;
  /** Opens the note dialog for "request changes". */
  requestChanges(workerId: string, title: string): void;
  /** Opens the message dialog for "send message" to a working agent. */
  sendMessage(workerId: string, title: string): void;
}

export function targetKey(action: ActionName, target: ActionTarget): string {
  if (target.kind === 'overlap') return `${action}:overlap:${target.id}:${target.other}`;
  return target.kind === 'folder' ? `${action}:folder` : `${action}:${target.kind}:${target.id}`;
}

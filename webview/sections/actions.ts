import type { ActionName, ActionTarget } from '../../src/shared/protocol';
import { type RenderContext, targetKey } from '../context';
import { custom, el } from '../dom';
import { type Glyph, icon } from '../icons';

interface ActionLook {
  readonly label: string;
  readonly glyph: Glyph;
  /** Primary actions move work forward and are shown as filled buttons. */
  readonly primary?: boolean;
  /** Inspections are shown as icon buttons when space is short. */
  readonly inspect?: boolean;
}

export const actionLook: Readonly<Record<ActionName, ActionLook>> = {
  assign: { label: 'Assign', glyph: 'assign', primary: true },
  start: { label: 'Start', glyph: 'play', primary: true },
  approve: { label: 'Approve', glyph: 'check', primary: true },
  requestChanges: { label: 'Request changes', glyph: 'comment' },
  merge: { label: 'Merge', glyph: 'merge', primary: true },
  cancel: { label: 'Cancel', glyph: 'close', inspect: true },
  reset: { label: 'Reset', glyph: 'reset' },
  retry: { label: 'Retry', glyph: 'retry', primary: true },
  cancelTask: { label: 'Cancel task', glyph: 'close', inspect: true },
  showChanges: { label: 'Show changes', glyph: 'diff', inspect: true },
  showLog: { label: 'Show log', glyph: 'log', inspect: true },
  openTerminal: { label: 'Open terminal', glyph: 'terminal', inspect: true },
  addWorker: { label: 'Add worker', glyph: 'personAdd' },
  newTask: { label: 'New task', glyph: 'add' },
  newChain: { label: 'New chain', glyph: 'chain' },
  allow: { label: 'Allow', glyph: 'check', primary: true },
  deny: { label: 'Deny', glyph: 'deny' },
  sendMessage: { label: 'Send message', glyph: 'comment' },
  interrupt: { label: 'Interrupt', glyph: 'pause' },
  overlapRunAfter: { label: 'Run after', glyph: 'chain' },
  overlapRebaseWhenMerged: { label: 'Rebase when merged', glyph: 'merge' },
  overlapIgnore: { label: 'Ignore for this pair', glyph: 'close' },
};

/** One action as a toolkit button; `compact` turns inspections into icon buttons. */
export function actionButton(
  ctx: RenderContext,
  action: ActionName,
  target: ActionTarget,
  options: { compact?: boolean; subject?: string } = {},
): HTMLElement {
  const look = actionLook[action];
  const iconOnly = options.compact === true && look.inspect === true;
  const label = options.subject ? `${look.label}: ${options.subject}` : look.label;
  const pending = ctx.isPending(action, target);
  const button = custom(
    'vscode-button',
    {
      class: `action action-${action}${pending ? ' pending' : ''}`,
      attrs: {
        appearance: iconOnly ? 'icon' : look.primary ? 'primary' : 'secondary',
        'aria-label': label,
        title: label,
        disabled: pending,
        'data-action': action,
        'data-focus-key': targetKey(action, target),
      },
      on: {
        click: (event) => {
          event.stopPropagation();
          if (action === 'requestChanges' && target.kind === 'worker') ctx.requestChanges(target.id, options.subject ?? target.id);
          else if (action === 'sendMessage' && target.kind === 'worker') ctx.sendMessage(target.id, options.subject ?? target.id);
          else ctx.act(action, target);
        },
      },
    },
    iconOnly ? icon(look.glyph) : el('span', { class: 'start', attrs: { slot: 'start' } }, icon(look.glyph)),
    iconOnly ? null : look.label,
  );
  return button;
}

export function actionBar(
  ctx: RenderContext,
  actions: readonly ActionName[],
  target: ActionTarget,
  options: { compact?: boolean; subject?: string } = {},
): HTMLElement | null {
  if (actions.length === 0) return null;
  if (!options.compact) return el('div', { class: 'actions' }, ...actions.map((action) => actionButton(ctx, action, target, options)));
  // Compact: the actions that move work on, then the inspections as icon buttons at the end.
  const main = actions.filter((action) => !actionLook[action].inspect);
  const inspect = actions.filter((action) => actionLook[action].inspect);
  return el(
    'div',
    { class: 'actions compact' },
    ...main.map((action) => actionButton(ctx, action, target, options)),
    inspect.length ? el('span', { class: 'icon-actions' }, ...inspect.map((action) => actionButton(ctx, action, target, options))) : null,
  );
}

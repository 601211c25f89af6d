import type { RenderContext } from '../context';
import { custom, el } from '../dom';
import { plural, stateLabel } from '../format';
import { icon } from '../icons';
import { actionButton } from './actions';

const summaryOrder = ['WORKING', 'ASSIGNED', 'IN_REVIEW', 'APPROVED', 'STALE', 'PAUSED', 'FAILED', 'IDLE', 'COMPLETED'];

/** Title, folder picker, the crew in one line, and the buttons that start work. */
export function renderHeader(ctx: RenderContext): HTMLElement {
  const { folder, snapshot } = ctx;
  const picker =
    snapshot.folders.length > 1
      ? custom(
          'vscode-dropdown',
          {
            class: 'folder-picker',
            attrs: { 'aria-label': 'Folder', 'data-focus-key': 'folder-picker' },
            on: {
              change: (event) =>
                ctx.setView({ folder: (event.target as HTMLSelectElement).value, workersPage: 0, chainsPage: 0, taskPage: 0 }),
            },
          },
          ...snapshot.folders.map((f) => custom('vscode-option', { attrs: { value: f.root, selected: f.root === folder.root } }, f.name)),
        )
      : null;
  const counts = summaryOrder
    .filter((state) => (folder.workerCounts[state] ?? 0) > 0)
    .map((state) =>
      el(
        'span',
        { class: `summary-item state-${state.toLowerCase()}` },
        el('span', { class: 'dot' }),
        `${folder.workerCounts[state]} ${stateLabel(state)}`,
      ),
    );
  const total = Object.values(folder.workerCounts).reduce((sum, n) => sum + n, 0);
  return el(
    'header',
    { class: 'top' },
    el(
      'div',
      { class: 'title-row' },
      el('h1', {}, icon('pulse'), 'Foreman', el('span', { class: 'folder-name' }, folder.name)),
      folder.baseBranch ? el('span', { class: 'base', attrs: { title: 'base branch' } }, 'onto ', el('code', {}, folder.baseBranch)) : null,
      picker,
      el('div', { class: 'spacer' }),
      el(
        'div',
        { class: 'actions' },
        ...['addWorker', 'newTask', 'newChain'].map((action) => actionButton(ctx, action as 'addWorker', { kind: 'folder' })),
      ),
    ),
    el(
      'div',
      { class: 'summary', attrs: { 'aria-label': 'Workers by state' } },
      el('span', { class: 'summary-total' }, plural(total, 'worker')),
      ...counts,
    ),
    folder.ownerNote
      ? el('p', { class: 'banner info' }, icon('eye'), `Read-only here: ${folder.ownerNote}. Actions are sent to the owner.`)
      : null,
    folder.restricted
      ? el(
          'p',
          { class: 'banner warning' },
          icon('lock'),
          'Restricted Mode: no agent is launched and no merge runs until you trust this workspace.',
        )
      : null,
  );
}

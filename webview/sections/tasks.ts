import { type TaskItem, taskTabOrder } from '../../src/shared/protocol';
import { taskStatusWord } from '../../src/shared/taskWords';
import { describeUsage, formatUsage, hasUsage } from '../../src/shared/usageText';
import type { RenderContext } from '../context';
import { el } from '../dom';
import { duration } from '../format';
import { icon } from '../icons';
import { actionBar } from './actions';
import { stateChip } from './chips';
import { pager } from './pager';

/** Tasks in no chain, one status at a time, paged. */
export function renderTasks(ctx: RenderContext): HTMLElement {
  const { tasks } = ctx.folder;
  // Task words, as the Queue view's groups say them: "To assign", not a worker's "Idle".
  const shown = taskStatusWord(tasks.status);
  const tabs = el(
    'div',
    { class: 'tabs', attrs: { role: 'tablist', 'aria-label': 'Free tasks by status' } },
    ...taskTabOrder.map((status) =>
      el(
        'button',
        {
          class: `tab state-${status}${status === tasks.status ? ' active' : ''}`,
          attrs: {
            role: 'tab',
            type: 'button',
            'aria-selected': status === tasks.status ? 'true' : 'false',
            'data-focus-key': `tab:${status}`,
          },
          on: { click: () => ctx.setView({ taskStatus: status, taskPage: 0 }) },
        },
        taskStatusWord(status),
        el('span', { class: 'tab-count' }, String(tasks.counts[status] ?? 0)),
      ),
    ),
  );
  return el(
    'section',
    { class: 'panel tasks', attrs: { 'aria-label': 'Tasks' } },
    el('h2', {}, 'Tasks', el('span', { class: 'muted' }, ' not in a chain')),
    tabs,
    tasks.items.length === 0
      ? el('p', { class: 'muted empty' }, `Nothing ${shown.toLowerCase()}.`)
      : el('ul', { class: 'task-list', attrs: { role: 'tabpanel' } }, ...tasks.items.map((task) => taskRow(ctx, task))),
    pager(tasks, `tasks ${shown.toLowerCase()}`, (page) => ctx.setView({ taskPage: page })),
  );
}

function taskRow(ctx: RenderContext, task: TaskItem): HTMLElement {
  const now = ctx.hostNow();
  const notes: Array<HTMLElement | string> = [];
  if (task.blockedBy) notes.push(el('span', { class: 'blocked' }, icon('lock'), 'waits for ', el('code', {}, task.blockedBy)));
  if (task.workerId) notes.push(el('span', {}, 'on ', el('code', {}, task.workerId)));
  if (task.attempt > 0) notes.push(`attempt ${task.attempt}/${task.maxAttempts}`);
  if (task.scheduledFor !== null && task.scheduledFor > now)
    notes.push(el('span', {}, icon('clock'), `retry in ${duration(task.scheduledFor - now)}`));
  if (task.manual) notes.push('manual');
  if (hasUsage(task.usage))
    notes.push(el('span', { class: 'usage', attrs: { title: describeUsage(task.usage) } }, formatUsage(task.usage)));
  return el(
    'li',
    { class: `task-row status-${task.status}`, attrs: { 'data-task': task.id } },
    el(
      'div',
      { class: 'task-main' },
      el('div', { class: 'task-title', attrs: { title: task.title } }, task.title),
      el('div', { class: 'meta muted' }, el('code', {}, task.id), ...notes.flatMap((note) => [' · ', note])),
      task.lastError ? el('div', { class: 'error-text' }, task.lastError) : null,
    ),
    stateChip(task.status, '', taskStatusWord(task.status).toLowerCase()),
    actionBar(ctx, task.actions, { kind: 'task', id: task.id }, { compact: true, subject: task.title }),
  );
}

import { pageSizes, type TransitionItem } from '../../src/shared/protocol';
import type { RenderContext } from '../context';
import { custom, el } from '../dom';
import { clockTime, duration, stateLabel } from '../format';
import { icon } from '../icons';
import { stateChip, ticking } from './chips';

const anyValue = '*';

/** The filters of the transition timeline: worker, task, state. */
export function renderActivityFilters(ctx: RenderContext): HTMLElement {
  const { activity } = ctx.folder;
  const filter = ctx.snapshot.view.activity;
  const apply = (patch: Partial<typeof filter>) => ctx.setView({ activity: { ...filter, ...patch, limit: pageSizes.activityStep } });
  const dropdown = (
    label: string,
    value: string | null,
    options: readonly string[],
    pretty: (value: string) => string,
    onPick: (value: string | null) => void,
  ) =>
    custom(
      'vscode-dropdown',
      {
        attrs: { 'aria-label': label, 'data-focus-key': `filter:${label}` },
        on: {
          change: (event) => {
            const picked = (event.target as HTMLSelectElement).value;
            onPick(picked === anyValue ? null : picked);
          },
        },
      },
      custom('vscode-option', { attrs: { value: anyValue, selected: value === null } }, `All ${label.toLowerCase()}s`),
      ...options.map((option) => custom('vscode-option', { attrs: { value: option, selected: option === value } }, pretty(option))),
    );
  const taskField = custom('vscode-text-field', {
    attrs: { placeholder: 'task id', 'aria-label': 'Task id', value: filter.task ?? '', 'data-focus-key': 'filter:task', size: 14 },
    on: {
      change: (event) => {
        const value = (event.target as HTMLInputElement).value.trim();
        apply({ task: /^[a-z0-9][a-z0-9-]{0,62}$/.test(value) ? value : null });
      },
    },
  });
  const filtered = filter.worker !== null || filter.task !== null || filter.state !== null;
  return el(
    'div',
    { class: 'filters' },
    dropdown(
      'Worker',
      filter.worker,
      activity.workers,
      (id) => id,
      (worker) => apply({ worker }),
    ),
    taskField,
    dropdown('State', filter.state, activity.states, stateLabel, (state) => apply({ state })),
    filtered
      ? custom(
          'vscode-button',
          {
            attrs: { appearance: 'secondary', 'data-focus-key': 'filter:clear' },
            on: { click: () => apply({ worker: null, task: null, state: null }) },
          },
          'Clear',
        )
      : null,
  );
}

/** The transitions, newest first, with "show more". */
export function renderActivityList(ctx: RenderContext): HTMLElement {
  const { activity } = ctx.folder;
  const filter = ctx.snapshot.view.activity;
  const now = ctx.hostNow();
  if (!activity.loaded) return el('p', { class: 'muted empty' }, 'Reading the transition log…');
  if (activity.items.length === 0)
    return el(
      'p',
      { class: 'muted empty' },
      activity.matching === 0 && filter.worker === null && filter.task === null && filter.state === null
        ? 'Nothing has happened yet.'
        : 'No transition matches the filter.',
    );
  return el(
    'div',
    {},
    el('ol', { class: 'timeline' }, ...activity.items.map((item) => row(ctx, item, now))),
    activity.matching > activity.items.length && filter.limit < pageSizes.activityMax
      ? custom(
          'vscode-button',
          {
            class: 'more',
            attrs: { appearance: 'secondary', 'data-focus-key': 'activity:more' },
            on: {
              click: () =>
                ctx.setView({ activity: { ...filter, limit: Math.min(pageSizes.activityMax, filter.limit + pageSizes.activityStep) } }),
            },
          },
          `Show ${Math.min(pageSizes.activityStep, activity.matching - activity.items.length)} more of ${activity.matching}`,
        )
      : activity.matching > activity.items.length
        ? el('p', { class: 'muted' }, `Showing the newest ${activity.items.length} of ${activity.matching}.`)
        : null,
  );
}

function row(ctx: RenderContext, item: TransitionItem, now: number): HTMLElement {
  const pick = () =>
    ctx.setView({
      activity: {
        ...ctx.snapshot.view.activity,
        ...(item.entity === 'worker' ? { worker: item.id, task: null } : { task: item.id, worker: null }),
        limit: pageSizes.activityStep,
      },
    });
  return el(
    'li',
    { class: `event severity-${item.severity}`, attrs: { 'data-seq': item.seq } },
    el(
      'time',
      { attrs: { datetime: new Date(item.at).toISOString(), title: new Date(item.at).toLocaleString() } },
      clockTime(item.at),
      el('span', { class: 'muted' }, ' · '),
      ticking(item.at, 'ago', `${duration(now - item.at)} ago`),
    ),
    el(
      'button',
      { class: `entity entity-${item.entity}`, attrs: { type: 'button', title: `Show only ${item.id}` }, on: { click: pick } },
      icon(item.entity === 'worker' ? 'person' : 'list'),
      item.id,
    ),
    el(
      'span',
      { class: 'move' },
      stateChip(item.from, 'small'),
      el('span', { class: 'arrow', attrs: { 'aria-label': 'to' } }, '→'),
      stateChip(item.to, 'small'),
    ),
    el(
      'span',
      { class: 'why muted' },
      item.trigger,
      item.actor ? ` by ${item.actor}` : '',
      item.attempt !== null ? ` · attempt ${item.attempt}` : '',
      item.reason ? ` · ${item.reason}` : '',
    ),
  );
}

import type { AttentionItem } from '../../src/shared/protocol';
import type { RenderContext } from '../context';
import { el } from '../dom';
import { duration } from '../format';
import { type Glyph, icon } from '../icons';
import { actionBar } from './actions';
import { ticking } from './chips';

const look: Record<AttentionItem['kind'], { label: string; glyph: Glyph }> = {
  input: { label: 'Waiting', glyph: 'bell' },
  review: { label: 'Review', glyph: 'eye' },
  merge: { label: 'Merge', glyph: 'merge' },
  stale: { label: 'Stuck', glyph: 'warning' },
  failed: { label: 'Failed', glyph: 'error' },
};

/** What waits for a person, most urgent kinds first; empty means nothing needs you. */
export function renderAttention(ctx: RenderContext): HTMLElement {
  const items = ctx.folder.attention;
  const now = ctx.hostNow();
  return el(
    'section',
    { class: `panel attention${items.length ? '' : ' calm'}`, attrs: { 'aria-label': 'Needs you' } },
    el('h2', {}, 'Needs you', el('span', { class: 'count' }, String(items.length))),
    items.length === 0
      ? el('p', { class: 'muted empty' }, icon('check'), 'Nothing is waiting for you.')
      : el(
          'ul',
          { class: 'attention-list' },
          ...items.map((item) => {
            const target =
              item.workerId && item.kind !== 'failed'
                ? ({ kind: 'worker', id: item.workerId } as const)
                : item.taskId
                  ? ({ kind: 'task', id: item.taskId } as const)
                  : null;
            return el(
              'li',
              { class: `attention-item kind-${item.kind}` },
              el('span', { class: 'kind' }, icon(look[item.kind].glyph), look[item.kind].label),
              el(
                'div',
                { class: 'what' },
                el('span', { class: 'title' }, item.title),
                el(
                  'span',
                  { class: 'detail' },
                  item.workerId ? el('code', {}, item.workerId) : null,
                  item.workerId ? ' · ' : null,
                  item.detail,
                  item.since !== null ? ' · ' : null,
                  item.since !== null ? ticking(item.since, 'ago', `${duration(now - item.since)} ago`) : null,
                ),
              ),
              target ? actionBar(ctx, item.actions, target, { subject: item.title }) : null,
            );
          }),
        ),
  );
}

import type { RenderContext } from '../context';
import { el } from '../dom';
import { bar } from '../bar';
import { duration, stateLabel } from '../format';
import { describeUsage, formatCost, formatTokens } from '../../src/shared/usageText';

/** Queue statistics as tiles: what waits, what runs, what needs review, what finished. */
export function renderStats(ctx: RenderContext): HTMLElement {
  const stats = ctx.folder.stats;
  const tile = (label: string, value: string, kind: string, hint?: string) =>
    el(
      'div',
      { class: `tile tile-${kind}`, attrs: { title: hint } },
      el('span', { class: 'tile-value' }, value),
      el('span', { class: 'tile-label' }, label),
    );
  return el(
    'section',
    { class: 'stats', attrs: { 'aria-label': 'Queue statistics' } },
    tile('queued', String(stats.queued), 'queued', `${stats.idle} more idle (not queued)`),
    tile('running', String(stats.running), 'running'),
    tile('in review', String(stats.inReview), 'review'),
    tile('done', String(stats.done), 'done'),
    tile('failed', String(stats.failed), 'failed', `${stats.cancelled} cancelled`),
    tile(
      'done / hour',
      stats.throughputPerHour === null ? '…' : String(stats.throughputPerHour),
      'throughput',
      'tasks finished in the last hour',
    ),
    tile(
      'tokens',
      formatTokens(stats.usage.inputTokens + stats.usage.outputTokens),
      'tokens',
      `every agent run so far: ${describeUsage(stats.usage)}`,
    ),
    tile('cost', formatCost(stats.usage.costUsd), 'cost', 'as the agents reported it (Codex reports tokens only)'),
  );
}

/** Mean and longest time spent in each state, from the audit log's consecutive transitions. */
export function renderTimeInState(ctx: RenderContext): HTMLElement | null {
  const { stats } = ctx.folder;
  if (stats.timeInState.length === 0) return null;
  const longest = Math.max(1, ...stats.timeInState.map((row) => row.meanMs));
  return el(
    'section',
    { class: 'panel time-in-state' },
    el(
      'h2',
      {},
      'Time in state',
      el(
        'span',
        { class: 'muted' },
        stats.transitions === null ? '' : ` · ${stats.transitions} transitions${stats.rejected ? `, ${stats.rejected} refused` : ''}`,
      ),
    ),
    el(
      'table',
      { class: 'grid-table' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', {}, 'state'),
          el('th', {}, 'times'),
          el('th', { class: 'num' }, 'mean'),
          el('th', { class: 'num' }, 'longest'),
          el('th', {}, ''),
        ),
      ),
      el(
        'tbody',
        {},
        ...stats.timeInState.map((row) =>
          el(
            'tr',
            {},
            el('td', {}, el('span', { class: `muted` }, `${row.entity} `), stateLabel(row.state)),
            el('td', { class: 'num' }, String(row.count)),
            el('td', { class: 'num' }, duration(row.meanMs)),
            el('td', { class: 'num' }, duration(row.maxMs)),
            el('td', { class: 'bar-cell' }, bar(row.meanMs / longest, `state-${row.state.toLowerCase()}`)),
          ),
        ),
      ),
    ),
  );
}

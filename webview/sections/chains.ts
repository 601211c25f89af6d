import type { ChainView, TaskItem } from '../../src/shared/protocol';
import { describeUsage, formatUsage, hasUsage } from '../../src/shared/usageText';
import { bar } from '../bar';
import { defaultSize, layoutChain } from '../chainLayout';
import type { RenderContext } from '../context';
import { el, svg } from '../dom';
import { duration, plural, stateLabel, truncate } from '../format';
import { fitText } from '../textFit';
import { actionBar } from './actions';
import { stateChip } from './chips';
import { pager } from './pager';

export interface ChainSelection {
  readonly selected: string | null;
  select(taskId: string | null): void;
  readonly width: number;
}

/** Each chain as a graph of its tasks: status colours, blocked-by edges, the running task highlighted. */
export function renderChains(ctx: RenderContext, selection: ChainSelection): HTMLElement | null {
  const { chains } = ctx.folder;
  if (chains.total === 0) return null;
  return el(
    'section',
    { class: 'panel chains', attrs: { 'aria-label': 'Chains' } },
    el('h2', {}, 'Chains', el('span', { class: 'count' }, String(chains.total))),
    ...chains.items.map((chain, index) => renderChain(ctx, chain, index, selection)),
    pager(chains, 'chains', (page) => ctx.setView({ chainsPage: page })),
  );
}

function renderChain(ctx: RenderContext, chain: ChainView, index: number, selection: ChainSelection): HTMLElement {
  const { parent, nodes } = chain;
  const selected = nodes.find((node) => node.id === selection.selected) ?? (parent.id === selection.selected ? parent : undefined);
  const running = nodes.find((node) => node.status === 'running');
  return el(
    'div',
    { class: `chain status-${parent.status}`, attrs: { 'data-chain': parent.id } },
    el(
      'div',
      { class: 'chain-head' },
      el('span', { class: 'chain-title', attrs: { title: parent.title } }, parent.title),
      stateChip(parent.status),
      chain.planningPhase === 'active' ? el('span', { class: 'chip planning' }, 'planning') : null,
      el('span', { class: 'muted' }, `${chain.done}/${nodes.length} done`),
      el(
        'span',
        { class: 'chain-bar' },
        bar(nodes.length ? chain.done / nodes.length : 0, 'progress done', `${chain.done} of ${nodes.length} done`),
      ),
      running ? el('span', { class: 'muted running-note' }, 'now: ', el('strong', {}, truncate(running.title, 40))) : null,
      el('span', { class: 'spacer' }),
      actionBar(ctx, parent.actions, { kind: 'task', id: parent.id }, { compact: true, subject: parent.title }),
    ),
    nodes.length === 0
      ? el('p', { class: 'muted empty' }, chain.planningPhase === 'active' ? 'Planning: no tasks yet.' : 'No tasks.')
      : graph(chain, index, selection),
    selected ? detail(ctx, selected) : null,
  );
}

function graph(chain: ChainView, index: number, selection: ChainSelection): SVGSVGElement {
  const size = defaultSize;
  const layout = layoutChain(
    chain.nodes.map((node) => node.id),
    chain.edges,
    selection.width,
  );
  const markerId = `arrow-${index}`;
  const blockedMarkerId = `arrow-blocked-${index}`;
  const byId = new Map(chain.nodes.map((node) => [node.id, node]));
  const marker = (id: string, className: string) =>
    svg(
      'marker',
      { attrs: { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' } },
      svg('path', { class: className, attrs: { d: 'M0 0L10 5L0 10z' } }),
    );
  return svg(
    'svg',
    {
      class: 'chain-graph',
      attrs: {
        width: layout.width,
        height: layout.height,
        viewBox: `0 0 ${layout.width} ${layout.height}`,
        role: 'group',
        'aria-label': `${chain.parent.title}: ${plural(chain.nodes.length, 'task')}`,
      },
    },
    svg('defs', {}, marker(markerId, 'arrow-head order'), marker(blockedMarkerId, 'arrow-head blocked')),
    ...layout.edges.map((edge) =>
      svg('path', {
        class: `edge ${edge.kind}`,
        attrs: {
          d: edge.path,
          'marker-end': `url(#${edge.kind === 'blocked' ? blockedMarkerId : markerId})`,
          'data-from': edge.from,
          'data-to': edge.to,
        },
      }),
    ),
    // The layout places exactly the chain's nodes, by id.
    ...layout.nodes.flatMap((placed, position) => {
      const task = byId.get(placed.id);
      return task ? [node(task, placed.x, placed.y, position, { ...size, nodeWidth: layout.nodeWidth }, selection)] : [];
    }),
  );
}

function node(task: TaskItem, x: number, y: number, position: number, size: typeof defaultSize, selection: ChainSelection): SVGGElement {
  const { nodeWidth: w, nodeHeight: h } = size;
  const blocked = task.blockedBy !== null && (task.status === 'queued' || task.status === 'idle');
  const status = blocked ? 'blocked' : task.status;
  const isSelected = selection.selected === task.id;
  // Who works on it matters more than the id, which the tooltip and the detail show in full.
  const sub = [`${position + 1}.`, task.workerId ? `${task.workerId} ·` : '', task.id, task.attempt > 1 ? `· try ${task.attempt}` : '']
    .filter(Boolean)
    .join(' ');
  const choose = () => selection.select(isSelected ? null : task.id);
  return svg(
    'g',
    {
      class: `node status-${status}${isSelected ? ' selected' : ''}`,
      attrs: {
        transform: `translate(${x} ${y})`,
        tabindex: 0,
        role: 'button',
        'aria-pressed': isSelected ? 'true' : 'false',
        'aria-label': `${position + 1}. ${task.title}, ${blocked ? `blocked by ${task.blockedBy}` : stateLabel(task.status)}`,
        'data-task': task.id,
        'data-focus-key': `node:${task.id}`,
      },
      on: {
        click: choose,
        keydown: (event) => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            choose();
          }
        },
      },
    },
    svg(
      'title',
      {},
      `${task.title}\n${task.id} · ${blocked ? `blocked by ${task.blockedBy}` : task.status}${task.lastError ? `\n${task.lastError}` : ''}`,
    ),
    task.status === 'running' ? svg('rect', { class: 'halo', attrs: { x: -4, y: -4, width: w + 8, height: h + 8, rx: 10 } }) : null,
    svg('rect', { class: 'box', attrs: { width: w, height: h, rx: 6 } }),
    svg('rect', { class: 'stripe', attrs: { width: 4, height: h - 12, x: 6, y: 6, rx: 2 } }),
    // Cut to what the node holds, measured in its own font: a wider node shows more of the title.
    svg('text', { class: 'node-title', attrs: { x: 16, y: 21 } }, fitText(task.title, w - 24, 'title')),
    svg('text', { class: 'node-sub', attrs: { x: 16, y: 38 } }, fitText(sub, w - 24, 'sub')),
  );
}

function detail(ctx: RenderContext, task: TaskItem): HTMLElement {
  const now = ctx.hostNow();
  const facts: Array<string | HTMLElement> = [el('code', {}, task.id), stateChip(task.status)];
  if (task.workerId) facts.push(el('span', {}, 'worker ', el('code', {}, task.workerId)));
  facts.push(el('span', {}, `attempt ${task.attempt}/${task.maxAttempts}`));
  if (task.blockedBy) facts.push(el('span', {}, 'waits for ', el('code', {}, task.blockedBy)));
  if (task.scheduledFor !== null && task.scheduledFor > now) facts.push(el('span', {}, `retry in ${duration(task.scheduledFor - now)}`));
  if (hasUsage(task.usage))
    facts.push(el('span', { class: 'usage', attrs: { title: describeUsage(task.usage) } }, formatUsage(task.usage)));
  return el(
    'div',
    { class: 'chain-detail', attrs: { 'aria-live': 'polite' } },
    el('div', { class: 'detail-title' }, task.title),
    el('div', { class: 'facts' }, ...facts),
    task.lastError ? el('p', { class: 'error-text' }, task.lastError) : null,
    actionBar(ctx, task.actions, { kind: 'task', id: task.id }, { subject: task.title }),
  );
}

import type { WorkerCard } from '../../src/shared/protocol';
import { fileCount, hunkWords, hunksMeet, overlapActions, overlapLine, planWords } from '../../src/shared/overlapWords';
import type { RenderContext } from '../context';
import { el, svg } from '../dom';
import { icon } from '../icons';
import { type Box, edgePath, overlapPairs } from '../overlapEdges';
import { actionBar } from './actions';

/**
 * A card's overlaps with other running tasks (issue 33): a badge in its header naming the other
 * tasks, and a line per overlap with the files (in its tooltip), whether changed lines meet, the
 * plan chosen, and the answers (Run after, Rebase when merged, Ignore for this pair).
 */
export function overlapBadge(worker: WorkerCard): HTMLElement | null {
  if (worker.overlaps.length === 0) return null;
  const loud = hunksMeet(worker.overlaps);
  const words = `overlaps ${worker.overlaps.map((overlap) => overlap.taskId).join(', ')}`;
  const detail = worker.overlaps.map((overlap) => overlapLine(overlap)).join('\n');
  return el(
    'span',
    { class: `overlap-badge${loud ? ' hunks' : ''}`, attrs: { title: detail, 'aria-label': detail, role: 'status' } },
    icon(loud ? 'warning' : 'overlap'),
    words,
  );
}

export function overlapLines(ctx: RenderContext, worker: WorkerCard): HTMLElement | null {
  if (worker.overlaps.length === 0 || !worker.taskId) return null;
  const taskId = worker.taskId;
  return el(
    'div',
    { class: 'overlaps' },
    ...worker.overlaps.map((overlap) => {
      const plan = planWords(overlap);
      return el(
        'div',
        {
          class: `overlap${overlap.hunks ? ' hunks' : ''}`,
          attrs: { 'data-overlap': overlap.taskId, title: overlapLine(overlap, { files: true }) },
        },
        el(
          'div',
          { class: 'overlap-text' },
          icon(overlap.hunks ? 'warning' : 'overlap'),
          'same files as ',
          el('code', {}, overlap.taskId),
          ' ',
          el('span', { class: 'overlap-title' }, overlap.title),
          overlap.workerId ? el('span', { class: 'muted' }, ` on ${overlap.workerId}`) : null,
          el('span', { class: 'muted' }, ` · ${fileCount(overlap)}: ${overlap.files.join(', ')} · ${hunkWords(overlap)}`),
        ),
        plan ? el('span', { class: 'chip overlap-plan', attrs: { 'data-plan': overlap.plan } }, plan) : null,
        actionBar(
          ctx,
          overlapActions(overlap),
          { kind: 'overlap', id: taskId, other: overlap.taskId },
          { compact: true, subject: `${taskId} and ${overlap.taskId}` },
        ),
      );
    }),
  );
}

/**
 * The layer of edges over a grid of cards: drawn once the page has laid the cards out, and again
 * whenever the grid's size changes (cards wrap into other rows).
 */
export function overlapEdgeLayer(grid: HTMLElement, cards: readonly WorkerCard[]): SVGSVGElement | null {
  const pairs = overlapPairs(cards);
  if (pairs.length === 0) return null;
  const layer = svg('svg', { class: 'overlap-edges', attrs: { 'aria-hidden': 'true' } });
  const draw = () => {
    const origin = grid.getBoundingClientRect();
    const boxOf = (id: string): Box | undefined => {
      const card = [...grid.querySelectorAll<HTMLElement>('.worker-card')].find((candidate) => candidate.dataset['worker'] === id);
      if (!card) return undefined;
      const rect = card.getBoundingClientRect();
      return { x: rect.left - origin.left, y: rect.top - origin.top, width: rect.width, height: rect.height };
    };
    const paths = pairs.flatMap((pair) => {
      const a = boxOf(pair.a);
      const b = boxOf(pair.b);
      if (!a || !b) return [];
      const label = `${pair.a} and ${pair.b} work on the same files${pair.hunks ? ', changed lines overlap' : ''}`;
      return [
        svg(
          'path',
          { class: `overlap-edge${pair.hunks ? ' hunks' : ''}`, attrs: { d: edgePath(a, b), 'data-overlap-edge': pair.key } },
          svg('title', {}, label),
        ),
      ];
    });
    layer.replaceChildren(...paths);
  };
  requestAnimationFrame(draw);
  const observer = new ResizeObserver(() => (grid.isConnected ? draw() : observer.disconnect()));
  observer.observe(grid);
  return layer;
}

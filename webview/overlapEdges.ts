import type { WorkerCard } from '../src/shared/protocol';
import { pairKey } from '../src/shared/overlapWords';

/**
 * The lines between the cards of two workers whose tasks overlap (issue 33). The cards sit in a
 * CSS grid, so where they are is known only once the page is laid out: the pairs come from the
 * snapshot, the boxes from the page, and the path from the two (pure, so it is tested without a page).
 */

/** A card's box in the grid's coordinates (CSS pixels). */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Two workers on this page whose tasks overlap; `hunks` when changed lines meet on either side. */
export interface OverlapPair {
  /** The two worker ids, sorted, joined by `|`: one edge whichever side reports the overlap. */
  readonly key: string;
  readonly a: string;
  readonly b: string;
  readonly hunks: boolean;
}

/** The pairs among `cards` (an overlap with a worker on another page has no card to join). */
export function overlapPairs(cards: ReadonlyArray<Pick<WorkerCard, 'id' | 'overlaps'>>): OverlapPair[] {
  const shown = new Set(cards.map((card) => card.id));
  const pairs = new Map<string, OverlapPair>();
  for (const card of cards) {
    for (const overlap of card.overlaps) {
      const other = overlap.workerId;
      if (!other || other === card.id || !shown.has(other)) continue;
      const key = pairKey(card.id, other);
      const [a, b] = key.split('|') as [string, string];
      pairs.set(key, { key, a, b, hunks: overlap.hunks || (pairs.get(key)?.hunks ?? false) });
    }
  }
  return [...pairs.values()];
}

/** How far an edge between two cards of one row rises above them. */
const lift = 22;

/**
 * A path from one card to the other. Cards of one row are joined by an arc over their tops (the
 * gap between neighbours is too narrow to see a line in, and cards in between would hide a straight
 * one); cards of different rows by a curve from the upper one's bottom to the lower one's top.
 */
export function edgePath(first: Box, second: Box): string {
  const [a, b] = first.x <= second.x ? [first, second] : [second, first];
  const sameRow = a.y < b.y + b.height && b.y < a.y + a.height;
  if (sameRow) {
    const ax = a.x + a.width / 2;
    const bx = b.x + b.width / 2;
    const top = Math.min(a.y, b.y) - lift;
    return `M${r(ax)} ${r(a.y)}C${r(ax)} ${r(top)} ${r(bx)} ${r(top)} ${r(bx)} ${r(b.y)}`;
  }
  const [upper, lower] = a.y <= b.y ? [a, b] : [b, a];
  const ux = upper.x + upper.width / 2;
  const lx = lower.x + lower.width / 2;
  const from = upper.y + upper.height;
  const to = lower.y;
  const bend = Math.max(lift, (to - from) / 2);
  return `M${r(ux)} ${r(from)}C${r(ux)} ${r(from + bend)} ${r(lx)} ${r(to - bend)} ${r(lx)} ${r(to)}`;
}

function r(value: number): number {
  return Math.round(value * 10) / 10;
}

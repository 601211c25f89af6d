/** Where a chain's tasks go in its graph: in chain order, left to right, wrapping into rows. */

export interface LayoutSize {
  readonly nodeWidth: number;
  readonly nodeHeight: number;
  readonly gapX: number;
  readonly gapY: number;
  readonly pad: number;
}

export const defaultSize: LayoutSize = { nodeWidth: 184, nodeHeight: 50, gapX: 36, gapY: 34, pad: 10 };
/** Nodes grow up to this width when the panel has room, so titles are not cut short for nothing. */
export const maxNodeWidth = 360;

export interface PlacedNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
}

export interface PlacedEdge {
  readonly from: string;
  readonly to: string;
  /** `blocked`: `to` waits for `from` (blocked-by); `order`: the chain's sequence, already released. */
  readonly kind: 'order' | 'blocked';
  readonly path: string;
}

export interface ChainLayout {
  /** Each node's width: at least the size's, wider (up to maxNodeWidth) when the columns leave room. */
  readonly nodeWidth: number;
  readonly width: number;
  readonly height: number;
  readonly columns: number;
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
}

/**
 * Lays out `ids` in order in as many columns as `availableWidth` holds at the size's node width,
 * then widens the nodes to share the room left over (up to maxNodeWidth). Consecutive tasks are
 * joined by an order edge (turning down at a row's end); a blocked-by edge between consecutive
 * tasks takes that edge's place, and one between distant tasks arcs above them.
 */
export function layoutChain(
  ids: readonly string[],
  blockedBy: ReadonlyArray<{ from: string; to: string }>,
  availableWidth: number,
  size: LayoutSize = defaultSize,
): ChainLayout {
  const { nodeHeight: h, gapX, gapY, pad } = size;
  const columns = Math.max(1, Math.min(ids.length, Math.floor((availableWidth - 2 * pad + gapX) / (size.nodeWidth + gapX))));
  const room = Math.floor((availableWidth - 2 * pad - (columns - 1) * gapX) / columns);
  const w = Math.max(size.nodeWidth, Math.min(maxNodeWidth, room));
  const index = new Map(ids.map((id, i) => [id, i]));
  const arcs = blockedBy.flatMap((edge) => {
    const from = index.get(edge.from);
    const to = index.get(edge.to);
    // Next to each other, the order line already shows the block: only a jump needs an arc.
    return from !== undefined && to !== undefined && to !== from + 1 ? [{ ...edge, fromIndex: from, toIndex: to }] : [];
  });
  const top = pad + (arcs.length ? 18 : 0);
  const nodes = ids.map((id, i): PlacedNode => ({
    id,
    x: pad + (i % columns) * (w + gapX),
    y: top + Math.floor(i / columns) * (h + gapY),
  }));
  const blocked = new Set(blockedBy.map((edge) => `${edge.from}>${edge.to}`));
  const edges: PlacedEdge[] = [];
  for (const [i, a] of nodes.entries()) {
    const b = nodes[i + 1];
    if (!b) break;
    const path =
      a.y === b.y ? `M${a.x + w} ${a.y + h / 2}H${b.x - 2}` : `M${a.x + w / 2} ${a.y + h}V${a.y + h + gapY / 2}H${b.x + w / 2}V${b.y - 2}`;
    edges.push({ from: a.id, to: b.id, kind: blocked.has(`${a.id}>${b.id}`) ? 'blocked' : 'order', path });
  }
  for (const arc of arcs) {
    const a = nodes[arc.fromIndex];
    const b = nodes[arc.toIndex];
    if (!a || !b) continue;
    const lift = Math.min(top - 2, 16);
    edges.push({
      from: arc.from,
      to: arc.to,
      kind: 'blocked',
      path: `M${a.x + w / 2} ${a.y}C${a.x + w / 2} ${a.y - lift} ${b.x + w / 2} ${b.y - lift} ${b.x + w / 2} ${b.y - 2}`,
    });
  }
  const rows = Math.ceil(ids.length / columns);
  return {
    nodeWidth: w,
    width: Math.max(0, 2 * pad + columns * w + (columns - 1) * gapX),
    height: ids.length ? top + rows * h + (rows - 1) * gapY + pad : 0,
    columns,
    nodes,
    edges,
  };
}

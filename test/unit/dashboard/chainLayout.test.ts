import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSize, layoutChain, maxNodeWidth } from '../../../webview/chainLayout';

const ids = ['a', 'b', 'c', 'd', 'e'];
const step = defaultSize.nodeWidth + defaultSize.gapX;

test('tasks go left to right and wrap at the available width', () => {
  const layout = layoutChain(ids, [], 2 * defaultSize.pad + 3 * step - defaultSize.gapX);
  assert.equal(layout.columns, 3);
  assert.equal(layout.nodeWidth, defaultSize.nodeWidth, 'three nodes fill the width exactly');
  assert.deepEqual(layout.nodes.map((node) => [node.x, node.y]).slice(0, 4), [
    [defaultSize.pad, defaultSize.pad],
    [defaultSize.pad + step, defaultSize.pad],
    [defaultSize.pad + 2 * step, defaultSize.pad],
    [defaultSize.pad, defaultSize.pad + defaultSize.nodeHeight + defaultSize.gapY],
  ]);
  assert.equal(layout.edges.length, 4);
  assert.ok(layout.edges.every((edge) => edge.kind === 'order'));
  assert.match(layout.edges[2]!.path, /V.*H.*V/, 'the edge at a row end turns down to the next row');
});

test('blocked-by between neighbours marks their edge; between distant tasks it arcs', () => {
  const layout = layoutChain(
    ids,
    [
      { from: 'a', to: 'b' },
      { from: 'a', to: 'd' },
    ],
    10_000,
  );
  assert.equal(layout.columns, 5);
  assert.equal(layout.edges.find((edge) => edge.from === 'a' && edge.to === 'b')!.kind, 'blocked');
  const arc = layout.edges.find((edge) => edge.from === 'a' && edge.to === 'd')!;
  assert.equal(arc.kind, 'blocked');
  assert.match(arc.path, /C/);
  assert.ok(layout.nodes[0]!.y > defaultSize.pad, 'room is left above for the arc');
});

test('a narrow panel still shows one column; an empty chain has no size', () => {
  assert.equal(layoutChain(ids, [], 50).columns, 1);
  assert.equal(layoutChain([], [], 500).height, 0);
});

test('nodes widen to share the room a short chain leaves, so titles are not cut short for nothing', () => {
  const wide = layoutChain(['a', 'b', 'c'], [], 1200);
  assert.equal(wide.columns, 3);
  assert.ok(wide.nodeWidth > defaultSize.nodeWidth, `node width ${wide.nodeWidth}`);
  assert.ok(wide.nodeWidth <= maxNodeWidth);
  assert.ok(wide.width <= 1200, 'the graph still fits the panel');
  assert.equal(wide.nodes[1]!.x - wide.nodes[0]!.x, wide.nodeWidth + defaultSize.gapX);
  assert.equal(layoutChain(['a', 'b', 'c'], [], 100_000).nodeWidth, maxNodeWidth, 'never wider than the cap');
  assert.equal(layoutChain(ids, [], 50).nodeWidth, defaultSize.nodeWidth, 'never narrower than the size');
});

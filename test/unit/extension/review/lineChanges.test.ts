// When is a commented range answered? Table-driven over edits of a small file: the range's own
// lines edited, deleted or split by an insertion count; edits elsewhere that only move it do not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rangeChanged } from '../../../../src/extension/review/lineChanges';

const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n') + '\n';
const edit = (change: (lines: string[]) => void) => {
  const lines = before.trimEnd().split('\n');
  change(lines);
  return lines.join('\n') + '\n';
};

const cases: ReadonlyArray<{ name: string; after: string; range: [number, number]; changed: boolean }> = [
  { name: 'no change', after: before, range: [3, 4], changed: false },
  { name: 'a line of the range edited', after: edit((l) => (l[3] = 'D')), range: [3, 4], changed: true },
  { name: 'a line of the range deleted', after: edit((l) => l.splice(2, 1)), range: [3, 4], changed: true },
  { name: 'a line inserted inside the range', after: edit((l) => l.splice(3, 0, 'new')), range: [3, 4], changed: true },
  { name: 'lines inserted above move the range only', after: edit((l) => l.splice(0, 0, 'x', 'y')), range: [3, 4], changed: false },
  { name: 'a line inserted right before the range', after: edit((l) => l.splice(2, 0, 'x')), range: [3, 4], changed: false },
  { name: 'a line inserted right after the range', after: edit((l) => l.splice(4, 0, 'x')), range: [3, 4], changed: false },
  { name: 'edits above and below, none in the range', after: edit((l) => ((l[0] = 'A'), (l[7] = 'H'))), range: [3, 4], changed: false },
  { name: 'a single-line range edited', after: edit((l) => (l[5] = 'F')), range: [6, 6], changed: true },
  { name: 'the file emptied', after: '', range: [1, 1], changed: true },
  { name: 'a line appended at the end', after: `${before}i\n`, range: [8, 8], changed: false },
  { name: 'a duplicate line inserted before a repeated one', after: edit((l) => l.splice(5, 0, 'c')), range: [3, 3], changed: false },
];

for (const { name, after, range, changed } of cases) {
  test(`${name}: ${changed ? 'changed' : 'unchanged'}`, () => {
    assert.equal(rangeChanged(before, after, range[0], range[1]), changed);
  });
}

test('a file too large to diff line by line still tells an edit far from the range from one in it', () => {
  const big = Array.from({ length: 3000 }, (_, index) => `line ${index}`);
  const text = big.join('\n');
  const reversedMiddle = [...big.slice(0, 10), ...big.slice(10, 2990).reverse(), ...big.slice(2990)].join('\n');
  // Common head and tail are trimmed first: a range there is untouched whatever the middle does.
  assert.equal(rangeChanged(text, reversedMiddle, 2, 3), false);
  assert.equal(rangeChanged(text, reversedMiddle, 1500, 1500), true);
});

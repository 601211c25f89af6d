import { linesOf } from './reviewNote';

/** Above this many cells the line diff is not worth its memory: any change between the first and last differing line counts. */
const maxDiffCells = 4_000_000;

/**
 * Whether going from `before` to `after` changed the lines `startLine..endLine` (1-based,
 * inclusive) of `before`: one of them deleted or edited, or a line inserted between two of them.
 * Lines only moved by edits elsewhere in the file are not changed, so a comment on code the agent
 * left alone stays open however much else it rewrote.
 */
export function rangeChanged(before: string, after: string, startLine: number, endLine: number): boolean {
  const old = linesOf(before);
  const now = linesOf(after);
  let prefix = 0;
  while (prefix < old.length && prefix < now.length && old[prefix] === now[prefix]) prefix++;
  let suffix = 0;
  while (suffix < old.length - prefix && suffix < now.length - prefix && old[old.length - 1 - suffix] === now[now.length - 1 - suffix])
    suffix++;
  const oldMiddle = old.slice(prefix, old.length - suffix);
  const newMiddle = now.slice(prefix, now.length - suffix);
  if (oldMiddle.length === 0 && newMiddle.length === 0) return false;
  // Old lines (1-based) the edit removed, and old positions before which it inserted lines.
  const { removed, insertedBefore } =
    oldMiddle.length * newMiddle.length > maxDiffCells ? wholeBlock(oldMiddle.length, newMiddle.length) : lineDiff(oldMiddle, newMiddle);
  const inRange = (line: number) => line >= startLine && line <= endLine;
  // An insertion before the range's first line or after its last leaves the range's lines together.
  return (
    removed.some((line) => inRange(line + prefix)) || insertedBefore.some((line) => line + prefix > startLine && line + prefix <= endLine)
  );
}

interface LineEdits {
  /** Old lines removed, 1-based within the compared block. */
  readonly removed: number[];
  /** Old lines (1-based within the block; length + 1 = at its end) that have new lines inserted before them. */
  readonly insertedBefore: number[];
}

function wholeBlock(oldLength: number, newLength: number): LineEdits {
  return {
    removed: Array.from({ length: oldLength }, (_, index) => index + 1),
    insertedBefore: newLength > 0 ? [1] : [],
  };
}

/** A longest-common-subsequence line diff: what is not common was removed or inserted. */
function lineDiff(old: readonly string[], now: readonly string[]): LineEdits {
  const columns = now.length + 1;
  // common[i * columns + j]: the longest common subsequence of old[i..] and now[j..].
  const common = new Uint32Array((old.length + 1) * columns);
  const at = (i: number, j: number) => common[i * columns + j] ?? 0;
  for (let i = old.length - 1; i >= 0; i--) {
    for (let j = now.length - 1; j >= 0; j--) {
      common[i * columns + j] = old[i] === now[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const removed: number[] = [];
  const insertedBefore: number[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length || j < now.length) {
    if (i < old.length && j < now.length && old[i] === now[j]) {
      i++;
      j++;
    } else if (j < now.length && (i === old.length || at(i, j + 1) >= at(i + 1, j))) {
      if (insertedBefore[insertedBefore.length - 1] !== i + 1) insertedBefore.push(i + 1);
      j++;
    } else {
      removed.push(i + 1);
      i++;
    }
  }
  return { removed, insertedBefore };
}

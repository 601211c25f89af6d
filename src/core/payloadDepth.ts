/** How deeply a request's free-form payload (`send`'s) nests, bounded where it is parsed. */

/** Deeper payloads are refused before anything recurses over them (JSON.stringify, the journal, the endpoint). */
export const maxPayloadDepth = 64;

/**
 * How deeply arrays and objects nest in `value`, measured with an explicit stack (a 20,000-deep
 * payload must not overflow the call stack here either); stops counting once past `limit`.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<readonly [unknown, number]> = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [current, depth] = top;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

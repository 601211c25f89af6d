/** When a worker's heartbeat was due: pure, so it is tested without a DOM. */

/** The stretches of time in which a heartbeat was due, as [from, to] on the host's clock; consecutive due states join. */
export function dueSpans(
  states: ReadonlyArray<{ readonly at: number; readonly expected: boolean }>,
  hostNow: number,
): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let openedAt: number | undefined;
  for (const state of states) {
    if (state.expected && openedAt === undefined) openedAt = state.at;
    if (!state.expected && openedAt !== undefined) {
      spans.push([openedAt, state.at]);
      openedAt = undefined;
    }
  }
  if (openedAt !== undefined) spans.push([openedAt, hostNow]);
  return spans.filter(([from, to]) => to > from);
}

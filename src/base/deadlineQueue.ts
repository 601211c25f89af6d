/**
 * The earliest of many keyed deadlines, kept up to date one key at a time: a binary min-heap with
 * lazy deletion. `set` is O(log n); `next` is O(1) amortised (entries made stale by a later `set`
 * are dropped when they reach the top). It replaces reading every worker after every commit to
 * find the monitor's next liveness deadline (issue 13), which made a crew's cost grow with its size.
 */
export class DeadlineQueue {
  /** The current deadline of each key; the heap may also hold older entries, ignored when met. */
  private readonly current = new Map<string, number>();
  private readonly heap: Array<{ readonly at: number; readonly key: string }> = [];

  /** Sets (or, with undefined, clears) the deadline of `key`. */
  set(key: string, at: number | undefined): void {
    if (at === undefined) {
      this.current.delete(key);
      return;
    }
    if (this.current.get(key) === at) return;
    this.current.set(key, at);
    this.push({ at, key });
    // Superseded entries usually leave from the top soon; should they pile up, start afresh.
    if (this.heap.length > 4 * this.current.size + 64) this.rebuild();
  }

  /** Forgets every deadline (before they are all computed again). */
  clear(): void {
    this.current.clear();
    this.heap.length = 0;
  }

  /** The earliest deadline, or undefined when there is none. */
  next(): number | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top) return undefined;
      if (this.current.get(top.key) === top.at) return top.at;
      this.pop();
    }
  }

  /** Removes the keys whose deadline is at or before `now` and returns them (to be read again and set). */
  takeDue(now: number): string[] {
    const due: string[] = [];
    for (let at = this.next(); at !== undefined && at <= now; at = this.next()) {
      const top = this.heap[0];
      if (!top) break;
      this.current.delete(top.key);
      this.pop();
      due.push(top.key);
    }
    return due;
  }

  get size(): number {
    return this.current.size;
  }

  private rebuild(): void {
    this.heap.length = 0;
    for (const [key, at] of this.current) this.push({ at, key });
  }

  private push(entry: { at: number; key: string }): void {
    const heap = this.heap;
    heap.push(entry);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent];
      if (!above || above.at <= entry.at) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const leftEntry = heap[left];
      const rightEntry = heap[left + 1];
      const [child, below] = rightEntry && leftEntry && rightEntry.at < leftEntry.at ? [left + 1, rightEntry] : [left, leftEntry];
      if (!below || below.at >= last.at) break;
      heap[index] = below;
      index = child;
    }
    heap[index] = last;
  }
}

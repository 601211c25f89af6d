/** Time, as the engine reads it and sets its timers; tests pass a manual clock. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { dispose(): void };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return { dispose: () => clearTimeout(handle) };
  },
};

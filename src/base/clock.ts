import type { Disposable } from './lifetime';

/**
 * Time, as the engine and everything above it read it and set their timers; tests pass a manual
 * clock (test/support/manualClock.ts). Raw `setTimeout`/`setInterval` are for this file only
 * (eslint.config.mjs), so every timer in src can be moved by a test.
 */
export interface Clock {
  now(): number;
  /** Runs `fn` once, `ms` from now, unless disposed first. */
  setTimeout(fn: () => void, ms: number): Disposable;
  /** Runs `fn` every `ms` until disposed. */
  every(fn: () => void, ms: number): Disposable;
  /**
   * Resolves `ms` from now, or as soon as `until` settles (its timer then cleared): a wait with a
   * bound. Unlike the timers above, a sleep keeps the process alive: someone awaits it.
   */
  sleep(ms: number, until?: Promise<unknown>): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    // A timer alone keeps no process alive: whoever waits on it holds a socket, a child or a server.
    handle.unref?.();
    return { dispose: () => clearTimeout(handle) };
  },
  every(fn, ms) {
    const handle = setInterval(fn, ms);
    handle.unref?.();
    return { dispose: () => clearInterval(handle) };
  },
  sleep(ms, until) {
    let handle: NodeJS.Timeout | undefined;
    // Not unref'd: a one-shot CLI awaiting a sleep may have nothing else keeping it alive.
    const elapsed = new Promise<void>((resolve) => (handle = setTimeout(resolve, ms)));
    if (!until) return elapsed;
    const settled = until.then(
      () => undefined,
      () => undefined,
    );
    return Promise.race([elapsed, settled]).finally(() => clearTimeout(handle));
  },
};

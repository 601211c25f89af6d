/**
 * The one way a test waits on something it does not own the clock of: a real process, a file, a
 * socket, a VS Code window. Timing logic is tested on the manual clock instead (manualClock.ts).
 */

export interface PollOptions {
  /** What is awaited, as the timeout error should name it: "w1 in IN_REVIEW". */
  readonly what: string;
  /** Default 10 s. */
  readonly timeoutMs?: number;
  /** The pause between looks; default 50 ms. 0 looks again on the next turn of the event loop. */
  readonly intervalMs?: number;
  /** What else the timeout error should say (the last status, a log), read when it fires. */
  readonly detail?: () => string;
}

/** What a condition answers while it does not hold yet. */
type NotYet = undefined | null | false;

/**
 * Looks at `condition` until it answers something other than undefined, null or false, and
 * resolves with that answer. After `timeoutMs` it rejects with an error naming what it waited for.
 * An exception from the condition ends the wait at once: a check that throws is a failed test,
 * not a state to wait out.
 */
export async function pollUntil<T>(condition: () => T | PromiseLike<T>, options: PollOptions): Promise<Exclude<T, NotYet>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await condition();
    if (answer !== undefined && answer !== null && answer !== false) return answer as Exclude<T, NotYet>;
    if (Date.now() > deadline) {
      const detail = options.detail?.();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}${detail ? `\n${detail}` : ''}`);
    }
    await new Promise((resolve) => (intervalMs > 0 ? setTimeout(resolve, intervalMs) : setImmediate(resolve)));
  }
}

/**
 * How an agent's end reads in the UI, the log and the liveness verdict (ARCHITECTURE §4): the pid,
 * what happened, and the local wall-clock time people compare with their own logs.
 */

/** Whether Foreman ended the run: cancel began, and SIGKILL had to follow SIGTERM. */
export interface CancelState {
  readonly cancelled: boolean;
  readonly escalated: boolean;
}

function clockTime(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

/** "pid 4121 exited 1 at 12:03:04", "pid 4121 ignored SIGTERM for 5000 ms and was killed by SIGKILL on cancel at 12:03:09", … */
export function describeExit(
  pid: number,
  code: number | null,
  signal: string | null,
  cancel: CancelState,
  graceMs: number,
  at = new Date(),
): string {
  const time = clockTime(at);
  if (cancel.escalated && signal === 'SIGKILL')
    return `pid ${pid} ignored SIGTERM for ${graceMs} ms and was killed by SIGKILL on cancel at ${time}`;
  if (cancel.cancelled && signal) return `pid ${pid} stopped by ${signal} on cancel at ${time}`;
  if (cancel.cancelled) return `pid ${pid} exited ${code ?? 'without a code'} on cancel at ${time}`;
  if (signal) return `pid ${pid} was killed by ${signal} at ${time}`;
  return `pid ${pid} exited ${code ?? 'without a code'} at ${time}`;
}

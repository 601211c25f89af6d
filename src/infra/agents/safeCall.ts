/**
 * Runs a caller's callback (a heartbeat, an exit hook) from a timer or an event handler: neither a
 * throw nor a rejected promise may escape there, so a failure is logged as `<what> failed: …`.
 */
export function safeCall(what: string, callback: () => unknown, log: (line: string) => void = () => undefined): void {
  try {
    const pending = callback();
    if (pending instanceof Promise) pending.catch((error: unknown) => log(`${what} failed: ${String(error)}`));
  } catch (error) {
    log(`${what} failed: ${String(error)}`);
  }
}

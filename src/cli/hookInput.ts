/**
 * The hook payload on stdin can be read once. When the thin CLI (thin.ts) has read it and then
 * leaves the call to the full CLI (no owner, a tool call that waits for a person), it hands the text
 * over in the same process; the full CLI is a separate bundle, so the handover is a global symbol.
 */
import { readFileSync } from 'node:fs';

const handedOver = Symbol.for('foreman.hookInput');
type WithHookInput = typeof globalThis & { [handedOver]?: string };

/** Reads stdin, once per process: later calls (the full CLI after the thin one) get the same text. */
export function readHookInput(): string {
  const global = globalThis as WithHookInput;
  global[handedOver] ??= readFileSync(0, 'utf8');
  return global[handedOver];
}

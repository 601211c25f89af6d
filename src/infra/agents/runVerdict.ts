/**
 * The end of an agent run as its adapter judges it (ARCHITECTURE §6). A `command` profile is
 * judged by its exit code alone, as before adapters existed; a known kind also by what it said
 * (its result event, last message and errors) and the end of its other output.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { AgentVerdict } from '../../engine/ports';
import type { AttemptPaths } from './attemptLog';
import type { EventStream } from './eventStream';
import { type AgentAdapter, readCodexLastMessage } from './kinds';

const tailBytes = 4096;

/** The last few KB the agent wrote to the log after `from` (its stderr, or all of a command's output). */
export function outputTail(logFile: string, from: number): string {
  let descriptor: number;
  try {
    descriptor = openSync(logFile, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(descriptor).size;
    const start = Math.max(from, size - tailBytes);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    readSync(descriptor, buffer, 0, buffer.length, start);
    return buffer.toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}

export function verdictOf(
  adapter: AgentAdapter | undefined,
  exit: { code: number | null; signal: string | null; reason: string },
  paths: AttemptPaths,
  outputStart: number,
  stream: EventStream | undefined,
): AgentVerdict {
  if (!adapter) return exit.code === 0 ? { outcome: 'success' } : { outcome: 'failed', reason: exit.reason };
  const lastMessage = stream?.lastMessage ?? (adapter.kind === 'codex' ? readCodexLastMessage(paths.runDir, paths.stem) : undefined);
  return adapter.judge({
    ...exit,
    ...(stream?.result ? { result: stream.result } : {}),
    ...(lastMessage !== undefined ? { lastMessage } : {}),
    errors: stream?.errors ?? [],
    outputTail: outputTail(paths.logFile, outputStart),
  });
}

/**
 * The end of an agent run as its adapter judges it (ARCHITECTURE §6). A `command` profile is
 * judged by its exit code alone, as before adapters existed; a known kind also by what it said
 * (its result event, last message and errors) and the end of its other output. An agent without an
 * event stream (a `command` profile, Aider) is summed up in its own words: the last lines it printed.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { AgentVerdict } from '../../engine/ports';
import type { AttemptPaths } from './attemptLog';
import type { EventStream } from './eventStream';
import type { AgentAdapter } from './kinds';

const tailBytes = 4096;
/** How much of an agent's own output becomes its review summary or the why of its failure. */
const summaryLines = 12;
const summaryChars = 2000;
const reasonChars = 300;

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
  const tail = outputTail(paths.logFile, outputStart);
  if (!adapter) {
    const said = lastLines(tail, summaryLines, summaryChars);
    if (exit.code === 0) return said ? { outcome: 'success', summary: said } : { outcome: 'success' };
    // "pid 7 exited 1 at 12:00:00: npm ERR! Test failed": the exit, then the agent's last words about it.
    const why = lastLines(tail, 1, reasonChars);
    return { outcome: 'failed', reason: why ? `${exit.reason}: ${why}` : exit.reason };
  }
  const lastMessage = stream?.lastMessage ?? adapter.lastMessage?.(paths);
  const verdict = adapter.judge({
    ...exit,
    ...(stream?.result ? { result: stream.result } : {}),
    ...(stream?.limit ? { limit: stream.limit } : {}),
    ...(lastMessage !== undefined ? { lastMessage } : {}),
    errors: stream?.errors ?? [],
    outputTail: tail,
  });
  if (adapter.streamsEvents || verdict.outcome !== 'success' || verdict.summary) return verdict;
  // No event stream, so no last message: what it printed last is the closest thing to one.
  const said = lastLines(tail, summaryLines, summaryChars);
  return said ? { outcome: 'success', summary: said } : verdict;
}

/** Terminal colour and cursor sequences: a summary is read as plain text (a commit body, a card). */
// eslint-disable-next-line no-control-regex -- ESC is exactly what is matched
const escapeSequences = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * The last `count` non-empty lines of an agent's output, at most `maxChars` (the start cut, as
 * the end is where an agent says what it did). Foreman's own `# foreman …` log lines are not the
 * agent's words, a tail that starts mid-line loses that partial first line, and a line redrawn
 * with carriage returns (a progress bar) keeps only what it showed last.
 */
export function lastLines(output: string, count: number, maxChars: number): string {
  const lines = output.replace(escapeSequences, '').split('\n');
  if (Buffer.byteLength(output) >= tailBytes) lines.shift();
  const said = lines
    .map((line) => (line.replace(/\r+$/, '').split('\r').at(-1) ?? '').trimEnd())
    .filter((line) => line.trim() !== '' && !line.startsWith('# foreman '))
    .slice(-count)
    .join('\n');
  return said.length > maxChars ? `…${said.slice(said.length - maxChars + 1)}` : said;
}

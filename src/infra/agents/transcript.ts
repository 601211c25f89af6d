/**
 * An attempt's agent events (`attempt-<n>.events.jsonl`, ARCHITECTURE §6) as a transcript a person
 * reads: markdown with one section per run (a resumed run appends to the same file), each tool call
 * as "Bash: npm test" with its output shortened, the agent's messages, its errors and questions,
 * what the run used and how it ended. Pure: lines in, text out, so it is tested without a window.
 */
import { retryText } from './agentVitals';
import { type AgentEvent, type Usage, addUsage, agentEventSchema, describeTool, zeroUsage } from '../../core/agentEvents';
import { describeUsage, formatUsage, hasUsage } from '../../shared/usageText';

export interface TranscriptOptions {
  /** How an event's time is printed; local "HH:MM:SS" by default. */
  readonly time?: (epochMs: number) => string;
  /** Output lines kept per tool call; the rest is counted, not shown. */
  readonly outputLines?: number;
}

/** The events file that sits next to an attempt's raw log. */
export function eventsFileOf(logFile: string): string {
  return logFile.replace(/\.log$/, '') + '.events.jsonl';
}

const defaultOutputLines = 12;
const outputChars = 2_000;

function localTime(epochMs: number): string {
  const date = new Date(epochMs);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** A fence longer than any backtick run inside, so output holding ``` cannot close it early. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = '`'.repeat(longest + 1);
  return longest ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

/** Markdown block quote of possibly several lines. */
function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function shorten(output: string, maxLines: number): string {
  const trimmed = output.replace(/\s+$/, '');
  const lines = trimmed.split('\n');
  let kept = lines.slice(0, maxLines).join('\n');
  if (kept.length > outputChars) kept = `${kept.slice(0, outputChars)}…`;
  const hidden = lines.length - Math.min(lines.length, maxLines);
  return hidden > 0 ? `${kept}\n… ${hidden} more line${hidden === 1 ? '' : 's'}` : kept;
}

/** Renders the events file's lines; a line that is not an event is skipped with a note saying so. */
export function renderTranscript(lines: readonly string[], options: TranscriptOptions = {}): string {
  const time = options.time ?? localTime;
  const maxLines = options.outputLines ?? defaultOutputLines;
  const out: string[] = [];
  let run = 0;
  let runUsage: Usage = zeroUsage;
  let total: Usage = zeroUsage;
  let skipped = 0;

  const endRun = () => {
    if (run > 0 && hasUsage(runUsage)) out.push(`*Usage of run ${run}: ${formatUsage(runUsage)} (${describeUsage(runUsage)})*`, '');
    runUsage = zeroUsage;
  };
  const startRun = (heading: string) => {
    endRun();
    run++;
    out.push(`## Run ${run}${heading}`, '');
  };
  const ensureRun = (at: number) => {
    if (run === 0) startRun(` (started ${time(at)})`);
  };

  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const event = parseLine(line);
    if (!event) {
      skipped++;
      out.push(`*Skipped line ${index + 1}: not an agent event.*`, '');
      return;
    }
    if (event.type === 'session') {
      startRun(` — ${event.resumed ? 'resumed session' : 'session'} ${code(event.sessionId)} (${time(event.at)})`);
      return;
    }
    ensureRun(event.at);
    renderEvent(event, out, time, maxLines, (usage) => {
      runUsage = addUsage(runUsage, usage);
      total = addUsage(total, usage);
    });
  });
  endRun();
  if (run > 1 && hasUsage(total)) out.push(`**Total usage: ${formatUsage(total)}** (${describeUsage(total)})`, '');
  if (run === 0 && skipped === 0) out.push('*No events yet.*', '');
  return out.join('\n');
}

function parseLine(line: string): AgentEvent | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = agentEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

function renderEvent(
  event: Exclude<AgentEvent, { type: 'session' }>,
  out: string[],
  time: (epochMs: number) => string,
  maxLines: number,
  addRunUsage: (usage: Usage) => void,
): void {
  switch (event.type) {
    case 'tool':
      out.push(`**${time(event.at)}** ▶ ${code(describeTool(event.name, event.detail))}`, '');
      return;
    case 'toolResult': {
      const output = shorten(event.output, maxLines);
      if (!event.ok) out.push(`✗ *the tool call failed or was denied*`, '');
      if (output) out.push(fenced(output), '');
      return;
    }
    case 'message':
      out.push(`**${time(event.at)}** Agent says:`, '', quote(event.text), '');
      return;
    case 'told':
      out.push(`**${time(event.at)}** You said:`, '', quote(event.text), '');
      return;
    case 'interrupted':
      out.push(`**${time(event.at)}** ⏹ **Interrupted by you**: the agent waits for your message.`, '');
      return;
    case 'needsInput':
      out.push(`**${time(event.at)}** ⏸ **Waiting for you:** ${event.message}`, '');
      return;
    case 'error':
      out.push(`**${time(event.at)}** ⚠ **Error:** ${event.message}`, '');
      return;
    case 'retry':
      out.push(`**${time(event.at)}** ↻ ${retryText(event)}`, '');
      return;
    case 'limit':
      out.push(`**${time(event.at)}** ⏸ **${event.message}**${event.resetsAt ? `, resets at ${time(event.resetsAt)}` : ''}`, '');
      return;
    case 'usage':
      addRunUsage(event.usage);
      return;
    case 'result':
      out.push(
        `### ${event.isError ? '✗ Result: failed' : '✓ Result'} (${time(event.at)})`,
        '',
        event.summary ? quote(event.summary) : '*no summary*',
        '',
      );
      return;
  }
}

/**
 * Codex's token usage as Foreman counts it (issue 27, finding 6). `turn.completed` carries the
 * *thread's* usage so far, not the turn's: after `codex exec resume` it includes every earlier run
 * of the thread. Foreman adds deltas, so each report is its total minus what was already counted.
 *
 * What was already counted is read from the attempt's own events file: the usage events of the
 * earlier runs of the same thread (a follow-up resumes the session of the same attempt). That is
 * chosen over Codex's rollout (`$CODEX_HOME/sessions/…`) because it is exactly what Foreman has
 * added: tokens of an earlier run killed before its `turn.completed` were never counted, and the
 * resumed total brings them in once, where a rollout baseline would drop them for good. It is also
 * Foreman's own format, where the rollout is Codex's undocumented one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentEventSchema, type Usage } from '../../../core/agentEvents';
import { type ModelPrice, codexDefaultModel, costOf } from '../../../core/modelPrices';

/** Codex's counts: `input` includes `cached` and `cacheWrite`, as OpenAI's `input_tokens` does. */
export interface CodexTotals {
  readonly input: number;
  readonly cached: number;
  readonly cacheWrite: number;
  readonly output: number;
}

export const zeroTotals: CodexTotals = { input: 0, cached: 0, cacheWrite: 0, output: 0 };

/**
 * Codex's counts as Foreman's usage: input without the cached part (`cached_input_tokens` and
 * `cache_write_input_tokens` are subsets of `input_tokens`), the cached part apart, priced by `price`.
 */
export function usageOfTotals(totals: CodexTotals, price: ModelPrice | undefined): Usage {
  const tokens = {
    inputTokens: Math.max(0, totals.input - totals.cached - totals.cacheWrite),
    cacheReadTokens: totals.cached,
    cacheWriteTokens: totals.cacheWrite,
    outputTokens: totals.output,
  };
  return { ...tokens, costUsd: price ? costOf(tokens, price) : 0 };
}

/** What `now` adds to `before`; a count that went down (a thread Codex reset) adds nothing. */
export function deltaOf(now: CodexTotals, before: CodexTotals): CodexTotals {
  const less = (a: number, b: number): number => Math.max(0, a - b);
  return {
    input: less(now.input, before.input),
    cached: less(now.cached, before.cached),
    cacheWrite: less(now.cacheWrite, before.cacheWrite),
    output: less(now.output, before.output),
  };
}

/**
 * The usage Foreman already counted for `threadId` in this events file: the usage events that
 * follow that thread's `session` events. A missing or unreadable file counted nothing.
 */
export function countedForThread(eventsFile: string, threadId: string): CodexTotals {
  let text: string;
  try {
    text = readFileSync(eventsFile, 'utf8');
  } catch {
    return zeroTotals;
  }
  let current: string | undefined;
  let input = 0;
  let cached = 0;
  let cacheWrite = 0;
  let output = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let parsed;
    try {
      parsed = agentEventSchema.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    const event = parsed.data;
    if (event.type === 'session') current = event.sessionId;
    if (event.type !== 'usage' || current !== threadId) continue;
    input += event.usage.inputTokens + event.usage.cacheReadTokens + event.usage.cacheWriteTokens;
    cached += event.usage.cacheReadTokens;
    cacheWrite += event.usage.cacheWriteTokens;
    output += event.usage.outputTokens;
  }
  return { input, cached, cacheWrite, output };
}

/** The attempt's normalised events file (attemptLog.ts names it so next to the run's other files). */
export function eventsFileOf(runDir: string, stem: string): string {
  return join(runDir, `${stem}.events.jsonl`);
}

/** `model="gpt-6-sol"` or `model=gpt-6-sol` of a `-c` override: the value, unquoted. */
function configValue(override: string): string | undefined {
  const match = /^\s*model\s*=\s*(.+?)\s*$/.exec(override);
  if (!match?.[1]) return undefined;
  return match[1].replace(/^(["'])(.*)\1$/, '$2');
}

/**
 * The model a Codex run uses: the profile's `-m/--model` or `-c model=…` args (the last wins, as
 * in Codex), else the top-level `model` of `$CODEX_HOME/config.toml`, else Codex's default.
 */
export function codexModel(args: readonly string[], environment: Readonly<Record<string, string>>): string {
  let chosen: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const next = args[i + 1];
    if ((arg === '-m' || arg === '--model') && next) chosen = next;
    else if (arg.startsWith('--model=')) chosen = arg.slice('--model='.length);
    else if ((arg === '-c' || arg === '--config') && next) chosen = configValue(next) ?? chosen;
    else if (arg.startsWith('--config=')) chosen = configValue(arg.slice('--config='.length)) ?? chosen;
  }
  return chosen ?? configuredModel(environment) ?? codexDefaultModel;
}

function configuredModel(environment: Readonly<Record<string, string>>): string | undefined {
  const home = environment['CODEX_HOME'] ?? (environment['HOME'] ? join(environment['HOME'], '.codex') : undefined);
  if (!home) return undefined;
  let text: string;
  try {
    text = readFileSync(join(home, 'config.toml'), 'utf8');
  } catch {
    return undefined;
  }
  // Only keys before the first [table] are top-level; `model` inside a profile table is not the default.
  const topLevel = text.split(/^\s*\[/m)[0] ?? '';
  const match = /^\s*model\s*=\s*["']([^"']+)["']/m.exec(topLevel);
  return match?.[1];
}

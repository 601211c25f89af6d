/**
 * What an agent did, in one shape whatever its kind (ARCHITECTURE §6): every adapter turns its own
 * output (Claude Code stream-json, Codex `exec --json`, a plain command's lines) into these events.
 * They are written per attempt to `.foreman/logs/<task>/attempt-<n>.events.jsonl`, read back with
 * the schema below, and rendered as the transcript ("Show Agent Log") and the dashboard's activity.
 */
import { z } from 'zod';

/** Tokens and money one agent run (or a sum of runs) used. */
export const usageSchema = z.object({
  /** Input tokens read fresh: without those read from or written to the prompt cache. */
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  /** Input tokens read from the prompt cache (cheaper); apart so a cache-heavy run reads as one. */
  cacheReadTokens: z.number().int().min(0).default(0),
  /** Input tokens written to the prompt cache (dearer than fresh input on most models). */
  cacheWriteTokens: z.number().int().min(0).default(0),
  /** US dollars as the agent reported them, or as Foreman priced its tokens (Codex: src/core/modelPrices.ts); 0 when unknown. */
  costUsd: z.number().min(0),
});
export type Usage = z.infer<typeof usageSchema>;

export const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

const at = z.number().int().min(0);

/**
 * Ends an agent reports in structured fields (not wording), each one a retry cannot fix:
 * `authentication` (no or bad credentials), `budget` (its spending cap), `maxTurns` (its turn cap),
 * `usageLimit` (its plan's limit: waits for the reset rather than fails).
 */
export const runFailures = ['authentication', 'budget', 'maxTurns', 'usageLimit'] as const;
export type RunFailure = (typeof runFailures)[number];
const text = z.string().max(20_000);

/** One normalised event of an agent run. `at` is epoch ms when Foreman read it. */
export const agentEventSchema = z.discriminatedUnion('type', [
  /** The agent's own session (Claude Code session id, Codex thread id): what a follow-up resumes. */
  z.object({ type: z.literal('session'), at, sessionId: z.string().min(1).max(200), resumed: z.boolean() }),
  /** A tool call as it starts: `Bash`, `npm test`. `files`: what an editing tool changes (the overlap check, docs/overlaps.md). */
  z.object({
    type: z.literal('tool'),
    at,
    name: z.string().max(200),
    detail: text,
    files: z.array(z.string().max(1000)).max(50).optional(),
  }),
  /** What a tool call returned (shortened); `ok` false when it failed or was denied. */
  z.object({ type: z.literal('toolResult'), at, ok: z.boolean(), output: text }),
  /** Text the agent wrote to the person. */
  z.object({ type: z.literal('message'), at, text }),
  /** A person's message to the running agent (Send Message), recorded when the agent took it in. */
  z.object({ type: z.literal('told'), at, text }),
  /** A person interrupted the agent's turn; its session lives on and waits for a message. */
  z.object({ type: z.literal('interrupted'), at }),
  /** The agent waits for a person (a permission it may not take by itself). */
  z.object({ type: z.literal('needsInput'), at, message: text }),
  z.object({ type: z.literal('error'), at, message: text }),
  /** Usage of this run so far, as a delta to add. */
  z.object({ type: z.literal('usage'), at, usage: usageSchema }),
  /**
   * The agent's own call to its model failed and the CLI retries it by itself (Claude's
   * `system/api_retry`, Codex's "Reconnecting…"): a sign of life, but not progress.
   */
  z.object({
    type: z.literal('retry'),
    at,
    message: text,
    attempt: z.number().int().min(0).optional(),
    maxAttempts: z.number().int().min(0).optional(),
    /** The HTTP status of the failed call, when the agent says it. */
    status: z.number().int().optional(),
    /** How long the agent waits before its next try (a rate limit's `retry-after`). */
    delayMs: z.number().int().min(0).optional(),
  }),
  /** A usage or rate limit of the agent's plan: it cannot go on until `resetsAt` (epoch ms), when known. */
  z.object({ type: z.literal('limit'), at, message: text, resetsAt: z.number().int().min(0).optional() }),
  /**
   * The run's own verdict: its last message and whether it called itself failed. `failure` is what
   * the agent's structured fields say it ended on, when that is something only a setting can fix.
   */
  z.object({ type: z.literal('result'), at, summary: text, isError: z.boolean(), failure: z.enum(runFailures).optional() }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
type Distribute<T> = T extends unknown ? Omit<T, 'at'> : never;
/** An event before it is stamped with the time it was read. */
export type AgentEventInput = Distribute<AgentEvent>;

/** "Bash: npm test", shortened to one line: how activity reads in every view. */
export function describeTool(name: string, detail: string, max = 120): string {
  const line = detail.replace(/\s+/g, ' ').trim();
  const full = line ? `${name}: ${line}` : name;
  return full.length > max ? `${full.slice(0, max - 1)}…` : full;
}

/** Claude Code's tools that change files, and the input field that names the file. */
const editingTools: Readonly<Record<string, string>> = {
  Edit: 'file_path',
  Write: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

/** The files a Claude Code tool call changes (none for a tool that changes no file). */
export function editedFiles(name: string, input: Readonly<Record<string, unknown>>): string[] {
  const field = editingTools[name];
  const value = field === undefined ? undefined : input[field];
  return typeof value === 'string' && value.trim() ? [value] : [];
}

/** The part of a tool's input that says what it does: the command, the file, the pattern. */
export function toolDetail(input: Readonly<Record<string, unknown>>): string {
  for (const key of ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'description', 'prompt']) {
    const value = input[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return '';
}

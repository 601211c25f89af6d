/**
 * What an agent did, in one shape whatever its kind (ARCHITECTURE §6): every adapter turns its own
 * output (Claude Code stream-json, Codex `exec --json`, a plain command's lines) into these events.
 * They are written per attempt to `.foreman/logs/<task>/attempt-<n>.events.jsonl`, read back with
 * the schema below, and rendered as the transcript ("Show Agent Log") and the dashboard's activity.
 */
import { z } from 'zod';

/** Tokens and money one agent run (or a sum of runs) used. */
export const usageSchema = z.object({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  /** US dollars as the agent reported them; 0 when the agent reports no cost (Codex reports tokens only). */
  costUsd: z.number().min(0),
});
export type Usage = z.infer<typeof usageSchema>;

export const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}

const at = z.number().int().min(0);
const text = z.string().max(20_000);

/** One normalised event of an agent run. `at` is epoch ms when Foreman read it. */
export const agentEventSchema = z.discriminatedUnion('type', [
  /** The agent's own session (Claude Code session id, Codex thread id): what a follow-up resumes. */
  z.object({ type: z.literal('session'), at, sessionId: z.string().min(1).max(200), resumed: z.boolean() }),
  /** A tool call as it starts: `Bash`, `npm test`. */
  z.object({ type: z.literal('tool'), at, name: z.string().max(200), detail: text }),
  /** What a tool call returned (shortened); `ok` false when it failed or was denied. */
  z.object({ type: z.literal('toolResult'), at, ok: z.boolean(), output: text }),
  /** Text the agent wrote to the person. */
  z.object({ type: z.literal('message'), at, text }),
  /** The agent waits for a person (a permission it may not take by itself). */
  z.object({ type: z.literal('needsInput'), at, message: text }),
  z.object({ type: z.literal('error'), at, message: text }),
  /** Usage of this run so far, as a delta to add. */
  z.object({ type: z.literal('usage'), at, usage: usageSchema }),
  /** The run's own verdict: its last message and whether it called itself failed. */
  z.object({ type: z.literal('result'), at, summary: text, isError: z.boolean() }),
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

/** The part of a tool's input that says what it does: the command, the file, the pattern. */
export function toolDetail(input: Readonly<Record<string, unknown>>): string {
  for (const key of ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'description', 'prompt']) {
    const value = input[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return '';
}

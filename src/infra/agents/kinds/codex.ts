/**
 * Codex CLI (ARCHITECTURE §6; facts in REAL-AGENTS-TESTING.md): `codex exec --json` with the
 * workspace-write sandbox (`--full-auto` is gone in 0.169), the last message written to a file of
 * the attempt, the thread id from `thread.started` kept so a follow-up runs `codex exec resume`.
 * Codex has no hooks: its JSON events are the activity, and they carry its token usage.
 */
import { type Dirent, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentEventInput } from '../../../core/agentEvents';
import type { AdapterOptions, AdapterRun, AgentAdapter, PlannedArgs, RunEvidence, StreamParser } from './adapter';
import { parseEventLine } from './adapter';
import { judgeRun } from './verdicts';

/** Codex keeps rollouts under `$CODEX_HOME/sessions/<yyyy>/<mm>/<dd>/rollout-<time>-<thread id>.jsonl`. */
export function codexSessionExists(threadId: string, environment: Readonly<Record<string, string>>): boolean {
  const home = environment['CODEX_HOME'] ?? (environment['HOME'] ? join(environment['HOME'], '.codex') : undefined);
  if (!home) return false;
  const search = (folder: string, depth: number): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of entries) {
      if (entry.isFile() && entry.name.endsWith(`${threadId}.jsonl`)) return true;
      if (entry.isDirectory() && depth > 0 && search(join(folder, entry.name), depth - 1)) return true;
    }
    return false;
  };
  return search(join(home, 'sessions'), 3);
}

const itemSchema = z.object({
  type: z.string(),
  command: z.string().optional(),
  aggregated_output: z.string().optional(),
  exit_code: z.number().nullable().optional(),
  status: z.string().optional(),
  text: z.string().optional(),
  message: z.string().optional(),
  changes: z.array(z.object({ path: z.string(), kind: z.string().optional() })).optional(),
});
const lineSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thread.started'), thread_id: z.string() }),
  z.object({ type: z.literal('item.started'), item: itemSchema }),
  z.object({ type: z.literal('item.completed'), item: itemSchema }),
  z.object({
    type: z.literal('turn.completed'),
    usage: z
      .object({ input_tokens: z.number().default(0), cached_input_tokens: z.number().default(0), output_tokens: z.number().default(0) })
      .optional(),
  }),
  z.object({ type: z.literal('turn.failed'), error: z.object({ message: z.string() }).optional() }),
  z.object({ type: z.literal('error'), message: z.string().optional() }),
]);

export function codexParser(resumed: boolean): StreamParser {
  // One session per run, however often the thread is announced.
  let announced = false;
  return {
    line(text) {
      const line = parseEventLine(text, lineSchema);
      if (!line) return [];
      const events: AgentEventInput[] = [];
      switch (line.type) {
        case 'thread.started':
          if (!announced) events.push({ type: 'session', sessionId: line.thread_id, resumed });
          announced = true;
          break;
        case 'item.started':
          if (line.item.type === 'command_execution') events.push({ type: 'tool', name: 'Bash', detail: line.item.command ?? '' });
          break;
        case 'item.completed': {
          const item = line.item;
          if (item.type === 'command_execution') {
            events.push({ type: 'toolResult', ok: item.exit_code === 0, output: (item.aggregated_output ?? '').slice(0, 2000) });
          } else if (item.type === 'agent_message' && item.text) {
            events.push({ type: 'message', text: item.text });
          } else if (item.type === 'file_change') {
            events.push({ type: 'tool', name: 'Edit', detail: (item.changes ?? []).map((change) => change.path).join(', ') });
          } else if (item.type === 'error' && (item.message ?? item.text)) {
            events.push({ type: 'error', message: item.message ?? item.text ?? '' });
          }
          break;
        }
        case 'turn.completed':
          if (line.usage) {
            const input = line.usage.input_tokens;
            events.push({ type: 'usage', usage: { inputTokens: input, outputTokens: line.usage.output_tokens, costUsd: 0 } });
          }
          break;
        case 'turn.failed':
          events.push({ type: 'error', message: line.error?.message ?? 'the turn failed' });
          break;
        case 'error':
          events.push({ type: 'error', message: line.message ?? 'error' });
          break;
      }
      return events;
    },
  };
}

function lastMessageFile(run: AdapterRun): string {
  return join(run.files.runDir, `${run.files.stem}.last-message.txt`);
}

export const codexAdapter: AgentAdapter = {
  kind: 'codex',
  streamsEvents: true,
  hooksReportActivity: false,
  plan(run: AdapterRun, options: AdapterOptions): PlannedArgs {
    const output = lastMessageFile(run);
    const resumed = run.resumeSession !== undefined && codexSessionExists(run.resumeSession, run.environment);
    const common = ['--json', '--output-last-message', output, '-c', 'sandbox_mode="workspace-write"', ...options.extraArgs];
    const args = resumed
      ? ['exec', ...common, 'resume', run.resumeSession, '--', run.resumePrompt ?? run.prompt]
      : ['exec', ...common, '--sandbox', 'workspace-write', '--', run.prompt];
    return { args, files: new Map(), resumed, ...(resumed ? { sessionId: run.resumeSession } : {}) };
  },
  parser: codexParser,
  judge(evidence: RunEvidence) {
    return judgeRun(evidence);
  },
};

/** The last message Codex wrote with `--output-last-message`, if any. */
export function readCodexLastMessage(runDir: string, stem: string): string | undefined {
  try {
    return readFileSync(join(runDir, `${stem}.last-message.txt`), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

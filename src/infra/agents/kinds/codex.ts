/**
 * Codex CLI (ARCHITECTURE §6; facts in REAL-AGENTS-TESTING.md): `codex exec --json` with the
 * workspace-write sandbox (`--full-auto` is gone in 0.169), the last message written to a file of
 * the attempt, the thread id from `thread.started` kept so a follow-up runs `codex exec resume`.
 * Codex has no hooks: its JSON events are the activity, and they carry its token usage — the
 * thread's total so far, counted here as deltas and priced by model (codexUsage.ts).
 */
import { type Dirent, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentConfinement } from '../../../core/agentConfinement';
import type { AgentEventInput } from '../../../core/agentEvents';
import { type ModelPrice, priceOf } from '../../../core/modelPrices';
import type { AdapterOptions, AdapterRun, AgentAdapter, PlannedArgs, RunEvidence, RunFiles, StreamParser } from './adapter';
import { parseEventLine } from './adapter';
import { type CodexTotals, codexModel, countedForThread, deltaOf, eventsFileOf, usageOfTotals, zeroTotals } from './codexUsage';
import { unwrapShellCommand } from '../../../core/shellCommand';
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
const count = z.number().int().min(0).default(0);
const lineSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thread.started'), thread_id: z.string() }),
  z.object({ type: z.literal('item.started'), item: itemSchema }),
  z.object({ type: z.literal('item.completed'), item: itemSchema }),
  z.object({
    type: z.literal('turn.completed'),
    usage: z.object({ input_tokens: count, cached_input_tokens: count, cache_write_input_tokens: count, output_tokens: count }).optional(),
  }),
  z.object({ type: z.literal('turn.failed'), error: z.object({ message: z.string() }).optional() }),
  z.object({ type: z.literal('error'), message: z.string().optional() }),
]);

/** What a Codex run's parser needs from its plan; a bare `parser(resumed)` knows none of it. */
export interface CodexRunContext {
  /** The attempt's events file, where the earlier runs of a resumed thread left what was counted. */
  readonly eventsFile?: string;
  /** The price of the run's model; without one, tokens are counted and money is not. */
  readonly price?: ModelPrice;
}

/**
 * "Reconnecting... 2/5 (…)" and "Reconnecting… waiting for network": Codex retrying its model call
 * by itself, shown as `error` lines. A sign of life, not a failure: the error that ends the run
 * comes after the last of them.
 */
const reconnecting = /^\s*Reconnecting(?:\.\.\.|…)\s*(?:(\d+)\s*\/\s*(\d+))?\s*(.*)$/i;

export function retryOf(message: string): AgentEventInput | undefined {
  const match = reconnecting.exec(message);
  if (!match) return undefined;
  const reason = (match[3] ?? '').replace(/^\((.*)\)$/s, '$1').trim();
  const status = /\b(?:status(?: code)?:?\s*|\b)([45]\d\d)\b/i.exec(reason)?.[1];
  return {
    type: 'retry',
    message: reason || message.trim(),
    ...(match[1] ? { attempt: Number(match[1]) } : {}),
    ...(match[2] ? { maxAttempts: Number(match[2]) } : {}),
    ...(status ? { status: Number(status) } : {}),
  };
}

/** Codex's own refusals, as they appear on a command it reports: declined, or stopped by the sandbox. */
function refusalOf(command: string, status: string | undefined, output: string): string | undefined {
  if (status === 'declined') return `codex declined to run: ${command}`;
  const denied = /(read-only file system|operation not permitted)/i.exec(output);
  if (status === 'failed' && denied) {
    const line = output.split('\n').find((part) => denied[1] !== undefined && part.toLowerCase().includes(denied[1].toLowerCase())) ?? '';
    return `the sandbox blocked: ${command} (${line.trim()})`;
  }
  return undefined;
}

export function codexParser(resumed: boolean, context: CodexRunContext = {}): StreamParser {
  // One session per run, however often the thread is announced.
  let announced = false;
  // The thread's usage Foreman has counted: each `turn.completed` total adds only what is beyond it.
  let counted = zeroTotals;
  return {
    line(text) {
      const line = parseEventLine(text, lineSchema);
      if (!line) return [];
      const events: AgentEventInput[] = [];
      switch (line.type) {
        case 'thread.started':
          if (!announced) {
            events.push({ type: 'session', sessionId: line.thread_id, resumed });
            if (resumed && context.eventsFile) counted = countedForThread(context.eventsFile, line.thread_id);
          }
          announced = true;
          break;
        case 'item.started':
          if (line.item.type === 'command_execution') {
            events.push({ type: 'tool', name: 'Bash', detail: unwrapShellCommand(line.item.command ?? '') });
          }
          break;
        case 'item.completed': {
          const item = line.item;
          if (item.type === 'command_execution') {
            const output = item.aggregated_output ?? '';
            events.push({ type: 'toolResult', ok: item.exit_code === 0, output: output.slice(0, 2000) });
            const refusal = refusalOf(unwrapShellCommand(item.command ?? ''), item.status, output);
            if (refusal) events.push({ type: 'error', message: refusal });
          } else if (item.type === 'agent_message' && item.text) {
            events.push({ type: 'message', text: item.text });
          } else if (item.type === 'file_change') {
            const files = (item.changes ?? []).map((change) => change.path).slice(0, 50);
            const paths = (item.changes ?? []).map((change) => change.path).join(', ');
            events.push({ type: 'tool', name: 'Edit', detail: paths, ...(files.length ? { files } : {}) });
            if (item.status === 'declined' || item.status === 'failed') {
              events.push({ type: 'error', message: `codex ${item.status === 'declined' ? 'declined' : 'failed'} to change ${paths}` });
            }
          } else if (item.type === 'error' && (item.message ?? item.text)) {
            const message = item.message ?? item.text ?? '';
            events.push(retryOf(message) ?? { type: 'error', message });
          }
          break;
        }
        case 'turn.completed':
          if (line.usage) {
            const total: CodexTotals = {
              input: line.usage.input_tokens,
              cached: line.usage.cached_input_tokens,
              cacheWrite: line.usage.cache_write_input_tokens,
              output: line.usage.output_tokens,
            };
            const delta = deltaOf(total, counted);
            counted = total;
            events.push({ type: 'usage', usage: usageOfTotals(delta, context.price) });
          }
          break;
        case 'turn.failed':
          events.push({ type: 'error', message: line.error?.message ?? 'the turn failed' });
          break;
        case 'error': {
          const message = line.message ?? 'error';
          events.push(retryOf(message) ?? { type: 'error', message });
          break;
        }
      }
      return events;
    },
  };
}

/** Codex's own sandbox (`workspace-write`), unless the profile's args turn it off. */
export function codexConfinement(extraArgs: readonly string[]): AgentConfinement {
  const bypass = extraArgs.some(
    (arg) => arg === '--dangerously-bypass-approvals-and-sandbox' || arg === '--yolo' || arg.includes('danger-full-access'),
  );
  return bypass ? 'open' : 'sandbox';
}

/** Where `--output-last-message` writes, next to the run's other files. */
function lastMessageFile(files: RunFiles): string {
  return join(files.runDir, `${files.stem}.last-message.txt`);
}

export const codexAdapter: AgentAdapter = {
  kind: 'codex',
  command: 'codex',
  prompt: 'argument',
  streamsEvents: true,
  hooksReportActivity: false,
  plan(run: AdapterRun, options: AdapterOptions): PlannedArgs {
    const output = lastMessageFile(run.files);
    const resumed = run.resumeSession !== undefined && codexSessionExists(run.resumeSession, run.environment);
    const common = ['--json', '--output-last-message', output, '-c', 'sandbox_mode="workspace-write"', ...options.extraArgs];
    const args = resumed
      ? ['exec', ...common, 'resume', run.resumeSession, '--', run.resumePrompt ?? run.prompt]
      : ['exec', ...common, '--sandbox', 'workspace-write', '--', run.prompt];
    const price = priceOf(codexModel(options.extraArgs, run.environment), options.prices);
    const parser = codexParser(resumed, { eventsFile: eventsFileOf(run.files.runDir, run.files.stem), ...(price ? { price } : {}) });
    return {
      args,
      files: new Map(),
      resumed,
      parser,
      confinement: codexConfinement(options.extraArgs),
      ...(resumed ? { sessionId: run.resumeSession } : {}),
    };
  },
  parser: codexParser,
  judge(evidence: RunEvidence) {
    return judgeRun(evidence);
  },
  /** What Codex wrote with `--output-last-message`, if anything. */
  lastMessage(files: RunFiles) {
    try {
      return readFileSync(lastMessageFile(files), 'utf8').trim() || undefined;
    } catch {
      return undefined;
    }
  },
};

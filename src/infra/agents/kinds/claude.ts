/**
 * Claude Code in print mode (ARCHITECTURE §6; facts in REAL-AGENTS-TESTING.md). It runs with
 * `-p --output-format stream-json --verbose`, a session id chosen per attempt (so a follow-up can
 * `--resume` it), and a settings file Foreman generates in `.foreman/` — never in the user's
 * `.claude/` — holding the permission allow-list and hooks that report to the `foreman` CLI.
 * Claude Code refuses `bypassPermissions` as root, so the allow-list is what lets it run tests.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { type AgentEventInput, describeTool, toolDetail } from '../../../core/agentEvents';
import type { AdapterOptions, AdapterRun, AgentAdapter, PlannedArgs, StreamParser } from './adapter';
import { allowedToolsVariable } from '../../../core/claudePermissions';
import { parseEventLine } from './adapter';
import { judgeRun } from './verdicts';

/** Edits, reading, searching, Bash in the worktree, and the `foreman` CLI. */
export const defaultClaudeAllowedTools: readonly string[] = [
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'Glob',
  'Grep',
  'LS',
  'TodoWrite',
  'Bash',
];
/** Always allowed, whatever the list: it is how the agent reports to Foreman. */
const foremanTool = 'Bash(foreman:*)';

/** Hook events Foreman listens to, and the ones that take a tool matcher. */
const hookEvents = ['PreToolUse', 'PostToolUse', 'Notification', 'PermissionRequest', 'Stop'] as const;
const matcherEvents: ReadonlySet<string> = new Set(['PreToolUse', 'PostToolUse', 'PermissionRequest']);

/**
 * Claude Code runs a hook's command through a shell, so the one string we hand it holds only a
 * quoted absolute path and fixed words; which worker and attempt it reports for come from the
 * environment the hook inherits (FOREMAN_WORKER_ID, FOREMAN_ATTEMPT), never from text we splice.
 */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function allowList(allowedTools: readonly string[]): string[] {
  return [...new Set([...allowedTools, foremanTool])];
}

/**
 * Hooks that only report run in the background (`async`), so the agent does not wait for them;
 * PreToolUse decides (it may wait for a person's answer) and Stop comes last, as the process
 * ends, when a background hook would be cut off.
 */
const backgroundHooks: ReadonlySet<string> = new Set(['PostToolUse', 'Notification']);

/** Seconds a hook may take: PreToolUse waits for a person's answer to a permission request. */
const hookTimeoutSeconds: Record<(typeof hookEvents)[number], number> = {
  PreToolUse: 3600,
  PostToolUse: 30,
  Notification: 30,
  PermissionRequest: 30,
  Stop: 30,
};

export function claudeSettings(foremanCommand: string, allowedTools: readonly string[]): object {
  const command = `${shellQuote(foremanCommand)} hook claude`;
  const hooks = Object.fromEntries(
    hookEvents.map((event) => [
      event,
      [
        {
          ...(matcherEvents.has(event) ? { matcher: '*' } : {}),
          hooks: [{ type: 'command', command, timeout: hookTimeoutSeconds[event], ...(backgroundHooks.has(event) ? { async: true } : {}) }],
        },
      ],
    ]),
  );
  return { permissions: { allow: allowList(allowedTools) }, hooks };
}

export function systemPrompt(run: AdapterRun): string {
  return [
    `You are one worker of a Foreman crew. You work in a git worktree of your own (${run.worktree}) on branch ${run.branch}, on one task: ${run.taskId}.`,
    "Stay inside this worktree. Make the change the task asks for and run the project's tests if it has any.",
    'Foreman commits whatever you leave in the worktree when you finish, so you need not commit; never push.',
    'To report progress run `foreman heartbeat --progress <0..1>`; if you cannot do the task, run `foreman fail --reason "<why>"`.',
    'End with a short summary of what you changed: it becomes the review summary a person reads.',
  ].join(' ');
}

/** Where Claude Code keeps a session: `$HOME/.claude/projects/<folder per cwd>/<id>.jsonl`. */
export function claudeSessionExists(sessionId: string, environment: Readonly<Record<string, string>>): boolean {
  const home = environment['CLAUDE_CONFIG_DIR'] ?? (environment['HOME'] ? join(environment['HOME'], '.claude') : undefined);
  if (!home) return false;
  const projects = join(home, 'projects');
  let folders: string[];
  try {
    folders = readdirSync(projects);
  } catch {
    return false;
  }
  return folders.some((folder) => existsSync(join(projects, folder, `${sessionId}.jsonl`)));
}

const contentSchema = z.array(
  z.union([
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('tool_use'), name: z.string(), input: z.record(z.string(), z.unknown()).default({}) }),
    z.object({
      type: z.literal('tool_result'),
      content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]).optional(),
      is_error: z.boolean().optional(),
    }),
    z.object({ type: z.string() }),
  ]),
);
const usageSchema = z.object({
  input_tokens: z.number().default(0),
  output_tokens: z.number().default(0),
  cache_creation_input_tokens: z.number().default(0),
  cache_read_input_tokens: z.number().default(0),
});
const lineSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('system'), subtype: z.string().optional(), session_id: z.string().optional() }),
  z.object({ type: z.literal('assistant'), message: z.object({ content: contentSchema }) }),
  z.object({ type: z.literal('user'), message: z.object({ content: z.union([z.string(), contentSchema]) }) }),
  z.object({
    type: z.literal('result'),
    subtype: z.string().optional(),
    is_error: z.boolean().default(false),
    result: z.string().optional(),
    total_cost_usd: z.number().default(0),
    usage: usageSchema.optional(),
    permission_denials: z.array(z.object({ tool_name: z.string(), tool_input: z.record(z.string(), z.unknown()).default({}) })).optional(),
  }),
]);

/** The part of a tool's input that says what it does (in core: the owner reads hook payloads with it too). */
export { toolDetail };

function resultText(content: z.infer<typeof contentSchema>[number]): string {
  if (!('content' in content) || content.content === undefined) return '';
  return typeof content.content === 'string' ? content.content : content.content.map((part) => part.text ?? '').join('\n');
}

export function claudeParser(resumed: boolean): StreamParser {
  // A resumed run may print its init line more than once; the run has one session.
  let announced = false;
  return {
    line(text) {
      const line = parseEventLine(text, lineSchema);
      if (!line) return [];
      const events: AgentEventInput[] = [];
      switch (line.type) {
        case 'system':
          if (line.subtype === 'init' && line.session_id && !announced) {
            announced = true;
            events.push({ type: 'session', sessionId: line.session_id, resumed });
          }
          break;
        case 'assistant':
          for (const part of line.message.content) {
            if (part.type === 'text' && 'text' in part && part.text.trim()) events.push({ type: 'message', text: part.text });
            if (part.type === 'tool_use' && 'name' in part) events.push({ type: 'tool', name: part.name, detail: toolDetail(part.input) });
          }
          break;
        case 'user':
          if (typeof line.message.content === 'string') break;
          for (const part of line.message.content) {
            if (part.type !== 'tool_result') continue;
            events.push({ type: 'toolResult', ok: !('is_error' in part && part.is_error), output: resultText(part).slice(0, 2000) });
          }
          break;
        case 'result': {
          const usage = line.usage;
          if (usage || line.total_cost_usd) {
            const input = usage ? usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens : 0;
            events.push({
              type: 'usage',
              usage: { inputTokens: input, outputTokens: usage?.output_tokens ?? 0, costUsd: line.total_cost_usd },
            });
          }
          for (const denial of line.permission_denials ?? []) {
            events.push({ type: 'error', message: `permission denied: ${describeTool(denial.tool_name, toolDetail(denial.tool_input))}` });
          }
          events.push({ type: 'result', summary: line.result ?? line.subtype ?? '', isError: line.is_error });
          break;
        }
      }
      return events;
    },
  };
}

export const claudeAdapter: AgentAdapter = {
  kind: 'claude',
  streamsEvents: true,
  hooksReportActivity: true,
  plan(run: AdapterRun, options: AdapterOptions): PlannedArgs {
    const settingsFile = join(run.files.runDir, `${run.files.stem}.claude-settings.json`);
    const settings = claudeSettings(run.foremanCommand, options.allowedTools ?? defaultClaudeAllowedTools);
    const resumed = run.resumeSession !== undefined && claudeSessionExists(run.resumeSession, run.environment);
    const sessionId = resumed ? run.resumeSession : randomUUID();
    const args = [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      ...(resumed ? ['--resume', sessionId] : ['--session-id', sessionId]),
      '--settings',
      settingsFile,
      '--permission-mode',
      'acceptEdits',
      '--append-system-prompt',
      systemPrompt(run),
      ...(options.maxBudgetUsd !== undefined ? ['--max-budget-usd', String(options.maxBudgetUsd)] : []),
      ...options.extraArgs,
      '--',
      resumed ? (run.resumePrompt ?? run.prompt) : run.prompt,
    ];
    return {
      args,
      files: new Map([[settingsFile, JSON.stringify(settings, null, 2)]]),
      sessionId,
      resumed,
      env: { [allowedToolsVariable]: JSON.stringify(allowList(options.allowedTools ?? defaultClaudeAllowedTools)) },
    };
  },
  parser: claudeParser,
  judge: judgeRun,
};

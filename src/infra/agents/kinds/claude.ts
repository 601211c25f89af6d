/**
 * Claude Code in print mode (ARCHITECTURE §6; facts in REAL-AGENTS-TESTING.md). It runs with
 * `-p --input-format stream-json --output-format stream-json --verbose --replay-user-messages`:
 * the prompt is the first user message on stdin, which stays open so a person can talk to the
 * running agent (claudeInput.ts; agentConversation.ts closes it after the last turn), and each
 * message the agent takes in is echoed back, which is how Foreman knows it arrived. It runs with
 * a session id chosen per attempt (so a follow-up can
 * `--resume` it), and a settings file Foreman generates in `.foreman/` — never in the user's
 * `.claude/` — holding the permission allow-list and hooks that report to the `foreman` CLI.
 * Claude Code refuses `bypassPermissions` as root, so the allow-list is what lets it run tests.
 * What it prints is read by claudeStream.ts.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterOptions, AdapterRun, AgentAdapter, PlannedArgs } from './adapter';
import { boardToolsConfig } from './claudeBoardTools';
import { claudeInput } from './claudeInput';
import { claudeLaunchSettings } from './claudeSettings';
import { claudeParser } from './claudeStream';
import { judgeRun } from './verdicts';

export { claudeSettings, defaultClaudeAllowedTools, shellQuote } from './claudeSettings';

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

const claudeAdvice = {
  authentication: "set ANTHROPIC_API_KEY in the profile's env, or run `claude /login` as the user Foreman runs as",
};

export const claudeAdapter: AgentAdapter = {
  kind: 'claude',
  command: 'claude',
  prompt: 'argument',
  input: claudeInput,
  streamsEvents: true,
  hooksReportActivity: true,
  plan(run: AdapterRun, options: AdapterOptions): PlannedArgs {
    const settingsFile = join(run.files.runDir, `${run.files.stem}.claude-settings.json`);
    const mcpFile = join(run.files.runDir, `${run.files.stem}.mcp.json`);
    const { settings, env, confinement } = claudeLaunchSettings(run, options);
    const resumed = run.resumeSession !== undefined && claudeSessionExists(run.resumeSession, run.environment);
    const sessionId = resumed ? run.resumeSession : randomUUID();
    // Plan first: Claude's plan mode, with its permission prompts on stdio so that its plan
    // (ExitPlanMode, offered in print mode only then) waits for a person (planApproval.ts).
    const planFirst = run.planFirst === true && !resumed;
    const mode = planFirst ? ['--permission-mode', 'plan', '--permission-prompt-tool', 'stdio'] : ['--permission-mode', 'acceptEdits'];
    const args = [
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--replay-user-messages',
      ...(resumed ? ['--resume', sessionId] : ['--session-id', sessionId]),
      '--settings',
      settingsFile,
      ...mode,
      '--append-system-prompt',
      systemPrompt(run),
      ...(options.maxBudgetUsd !== undefined ? ['--max-budget-usd', String(options.maxBudgetUsd)] : []),
      ...(options.boardTools ? ['--mcp-config', mcpFile] : []),
      ...options.extraArgs,
    ];
    return {
      args,
      // The prompt is the first message on stdin (claudeInput.ts), not an argument.
      stdinPrompt: resumed ? (run.resumePrompt ?? run.prompt) : run.prompt,
      files: new Map([
        [settingsFile, JSON.stringify(settings, null, 2)],
        ...(options.boardTools ? [[mcpFile, boardToolsConfig(run.foremanCommand)] as const] : []),
      ]),
      sessionId,
      resumed,
      env,
      confinement,
      ...(planFirst ? { asksOnStdin: true } : {}),
    };
  },
  parser: claudeParser,
  judge: (evidence) => judgeRun(evidence, claudeAdvice),
};

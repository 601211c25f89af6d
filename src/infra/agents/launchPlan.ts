/**
 * Everything decided before an agent process starts, without side effects: the checks that refuse
 * a launch, the argv with placeholders substituted, the environment, the executable and the files
 * of the attempt. A refused launch therefore leaves nothing behind — no log, no prompt file.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentConfinement } from '../../core/agentConfinement';
import type { AgentLaunch } from '../../engine/ports';
import { idPattern } from '../../core/ids';
import { type Result, invalid, ok, refused } from '../../core/result';
import { agentEnvironment, findCommand } from './agentEnvironment';
import { type AttemptPaths, attemptPaths } from './attemptLog';
import { type AgentAdapter, adapters } from './kinds';
import { expandPlaceholders } from './placeholders';
import type { AgentProfile } from './profiles';

/**
 * One agent to start: the engine's launch with its profile resolved; `env` carries what only the
 * caller knows (FOREMAN_ENDPOINT, FOREMAN_TOKEN, FOREMAN_DIR, FOREMAN_BASE…).
 */
export interface AgentLaunchSpec extends Omit<AgentLaunch, 'agent'> {
  readonly profile: AgentProfile;
}

export interface LaunchPlan {
  /** The file to execute, found on the agent's PATH. */
  readonly executable: string;
  /** argv after the command, placeholders substituted. */
  readonly args: string[];
  readonly environment: Record<string, string>;
  readonly paths: AttemptPaths;
  /** Whether the prompt file must be written (file delivery, or the args name it). */
  readonly writesPromptFile: boolean;
  /** Files the adapter needs before the launch (Claude Code's settings), by path. */
  readonly files: ReadonlyMap<string, string>;
  /** The adapter of a known agent kind; undefined for a `command` profile run as given. */
  readonly adapter: AgentAdapter | undefined;
  /** Whether this run continues `resumeSession`. */
  readonly resumed: boolean;
  /** How the run is confined, as its adapter planned it; `none` for a `command` profile. */
  readonly confinement: AgentConfinement;
  /** An agent that talks on stdin (adapter `input`): the first message to send it. */
  readonly stdinPrompt?: string;
  /** The run asks Foreman for its permissions on stdin (a plan to approve): see planApproval.ts. */
  readonly asksOnStdin?: boolean;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `terminal`: the caller runs it in a terminal (TerminalAgents); otherwise a terminal profile is refused. */
export function planLaunch(spec: AgentLaunchSpec, logDir: string, cliBinDir: string, how: { terminal?: boolean } = {}): Result<LaunchPlan> {
  // Ids become folder names and environment values: only checked ids get that far.
  if (!idPattern.test(spec.workerId)) return invalid('invalidWorkerId', `The worker id '${spec.workerId}' is not a valid id.`);
  if (!idPattern.test(spec.taskId)) return invalid('invalidTaskId', `The task id '${spec.taskId}' is not a valid id.`);
  if (!Number.isInteger(spec.attempt) || spec.attempt < 1) {
    return invalid('invalidAttempt', `Attempt ${spec.attempt} is not a positive whole number.`);
  }
  const { profile } = spec;
  if (profile.mode === 'terminal' && !how.terminal) {
    return refused(
      'terminalProfile',
      'This agent profile runs in a terminal of a VS Code window (mode "terminal"); open the workspace in VS Code to run it, or use mode "process".',
    );
  }
  if (!isDirectory(spec.worktree)) {
    return refused('worktreeMissing', `The worktree '${spec.worktree}' does not exist; prepare it before launching.`);
  }
  const paths = attemptPaths(logDir, spec.taskId, spec.attempt);
  const environment = agentEnvironment(spec, cliBinDir, profile.env, spec.env);
  const executable = findCommand(profile.command, environment, spec.worktree);
  if (!executable) {
    return refused(
      'agentCommandNotFound',
      `The agent command '${profile.command}' was not found on the agent's PATH or is not executable.`,
    );
  }
  const values = {
    prompt: spec.prompt,
    promptFile: paths.promptFile,
    taskId: spec.taskId,
    workerId: spec.workerId,
    branch: spec.branch,
    worktree: spec.worktree,
    attempt: String(spec.attempt),
  };
  const args = expandPlaceholders(profile.args, values);
  if (!args.ok) return args;
  const adapter = profile.kind === 'command' ? undefined : adapters[profile.kind];
  if (!adapter) {
    const writesPromptFile = profile.prompt === 'file' || profile.args.some((arg) => arg.includes('{promptFile}'));
    return ok({
      executable,
      args: args.value,
      environment,
      paths,
      writesPromptFile,
      files: new Map(),
      adapter,
      resumed: false,
      confinement: 'none',
    });
  }
  const planned = adapter.plan(
    {
      ...spec,
      foremanCommand: join(cliBinDir, 'foreman'),
      files: { promptFile: paths.promptFile, runDir: paths.runDir, stem: paths.stem },
      environment,
    },
    {
      extraArgs: args.value,
      ...(profile.allowedTools ? { allowedTools: profile.allowedTools } : {}),
      ...(profile.maxBudgetUsd !== undefined ? { maxBudgetUsd: profile.maxBudgetUsd } : {}),
      ...(profile.permissions !== undefined ? { permissions: profile.permissions } : {}),
      ...(profile.allowedHosts ? { allowedHosts: profile.allowedHosts } : {}),
      ...(profile.boardTools ? { boardTools: true } : {}),
      ...(profile.prices ? { prices: profile.prices } : {}),
    },
  );
  const bound = planned.parser;
  return ok({
    executable,
    args: planned.args,
    environment: { ...environment, ...planned.env },
    paths,
    writesPromptFile: false,
    files: planned.files,
    // A parser the plan bound to this run (Codex's usage already counted) stands in for the kind's own.
    adapter: bound ? { ...adapter, parser: () => bound } : adapter,
    resumed: planned.resumed,
    confinement: planned.confinement,
    ...(planned.stdinPrompt !== undefined ? { stdinPrompt: planned.stdinPrompt } : {}),
    ...(planned.asksOnStdin ? { asksOnStdin: true } : {}),
  });
}

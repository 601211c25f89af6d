/**
 * Starts an agent's process (ARCHITECTURE §6): in its own process group (spawned detached), with
 * cwd = its worktree, argv from its launch plan and no shell; its output goes straight into the
 * attempt's log, an event stream into a file of its own. The prompt goes to stdin, an argument or
 * a file, as the plan says; an agent that takes a person's messages keeps its stdin open.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { type Result, ok, refused } from '../../core/result';
import type { AgentConfinement } from '../../core/agentConfinement';
import { type AttemptPaths, appendLogLine, openAttemptLog, writePromptFile, writeRunFiles } from './attemptLog';
import type { AgentAdapter } from './kinds';
import { type AgentLaunchSpec, planLaunch } from './launchPlan';
import { AgentConversation } from './agentConversation';

/** What the supervisor needs to track a started agent. */
export interface Launched {
  readonly paths: AttemptPaths;
  /** Log size after our header: anything beyond it was written by the agent. */
  readonly outputStart: number;
  /** Stream size at launch: earlier runs of the attempt wrote what comes before. */
  readonly streamStart: number;
  readonly startedAt: number;
  readonly adapter: AgentAdapter | undefined;
  readonly resumed: boolean;
  readonly conversation: AgentConversation | undefined;
  readonly confinement: AgentConfinement;
  /** The agent asks for its permissions on stdin: its plan waits for a person. */
  readonly asksOnStdin: boolean;
}

/** A started agent process. */
export interface SpawnedAgent {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly launched: Launched;
}

/** Plans the launch (launchPlan.ts), writes the files it needs and starts the process. */
export function spawnAgent(spec: AgentLaunchSpec, logDir: string, cliBinDir: string, say: (line: string) => void): Result<SpawnedAgent> {
  const plan = planLaunch(spec, logDir, cliBinDir);
  if (!plan.ok) return plan;
  const { executable, args, environment, paths, adapter, stdinPrompt } = plan.value;
  const talks = adapter?.input !== undefined && stdinPrompt !== undefined;
  if (plan.value.writesPromptFile) writePromptFile(paths, spec.prompt);
  writeRunFiles(plan.value.files);
  const startedAt = Date.now();
  const log = openAttemptLog(paths.logFile, [spec.profile.command, ...args], spec.worktree, startedAt);
  // An agent with an event stream writes it to a file of its own, apart from its stderr.
  const stream = adapter?.streamsEvents ? openSync(paths.streamFile, 'a', 0o600) : undefined;
  const streamStart = stream === undefined ? 0 : fstatSync(stream).size;
  let child: ChildProcess;
  try {
    child = spawn(executable, args, {
      argv0: spec.profile.command,
      cwd: spec.worktree,
      env: environment,
      detached: true,
      shell: false,
      windowsHide: true,
      // stdin is /dev/null unless the prompt (or a conversation) goes there, so an agent never waits on a terminal.
      stdio: [spec.profile.prompt === 'stdin' || talks ? 'pipe' : 'ignore', stream ?? log.descriptor, log.descriptor],
    });
  } finally {
    closeSync(log.descriptor);
    if (stream !== undefined) closeSync(stream);
  }
  child.on('error', (error) => say(`agent for ${spec.workerId}: ${error.message}`));
  const pid = child.pid;
  if (pid === undefined) {
    appendLogLine(paths.logFile, 'launch failed: the process did not start');
    return refused('agentLaunchFailed', `The agent command '${spec.profile.command}' could not be started.`);
  }
  let conversation: AgentConversation | undefined;
  if (child.stdin && talks && adapter.input) {
    conversation = new AgentConversation(child.stdin, adapter.input, `the agent of ${spec.workerId}`, say);
    conversation.start(stdinPrompt);
  } else if (child.stdin) {
    // An agent may exit (or close stdin) before reading it all; that is its business, not a crash of ours.
    child.stdin.on('error', (error) => say(`agent ${pid} stdin: ${error.message}`));
    child.stdin.end(spec.prompt);
  }
  const { resumed, confinement } = plan.value;
  const outputStart = log.outputStart;
  const asksOnStdin = plan.value.asksOnStdin === true;
  return ok({
    child,
    pid,
    launched: { paths, outputStart, streamStart, startedAt, adapter, resumed, conversation, confinement, asksOnStdin },
  });
}

/**
 * Agents whose profile says `mode: "terminal"` (ARCHITECTURE §6): interactive agents a person may
 * want to watch or talk to, run in a terminal of the VS Code window instead of in the background.
 * The terminal itself is the host's (`TerminalHost`, implemented by the extension); everything else
 * is as for a background agent: the same argv and placeholders (never a shell), the same FOREMAN_*
 * environment with the CLI on PATH, the prompt file, a log per attempt (its output stays in the
 * terminal), heartbeats for the agent while its terminal runs, and the exit code deciding between
 * submit and a failed attempt. Closing the terminal by hand ends the attempt as a failure; the work
 * in the worktree is kept by the crew's snapshot.
 */
import { closeSync } from 'node:fs';
import { type Result, ok, refused } from '../../core/result';
import { type AgentExit, type Clock, systemClock } from '../../engine/ports';
import type { AgentSignals } from './agentRun';
import { appendLogLine, openAttemptLog, writePromptFile } from './attemptLog';
import { safeCall } from './safeCall';
import { type AgentLaunchSpec, planLaunch } from './launchPlan';

/** What to run in a new terminal. */
export interface TerminalLaunch {
  /** The terminal's title, e.g. "Foreman agent: ada · fix-login (attempt 2)". */
  readonly name: string;
  readonly executable: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The whole environment of the process (not added to the host's own). */
  readonly env: Readonly<Record<string, string>>;
  /** Typed into the terminal once it runs (a profile whose prompt goes to stdin). */
  readonly input?: string;
}

/** A terminal the host opened for an agent. */
export interface AgentTerminal {
  /** Settles when the terminal is gone: the process's exit code, or undefined when it was closed while running. */
  readonly exited: Promise<number | undefined>;
  /** Closes the terminal, ending its process. */
  close(): void;
}

/** Opens terminals; in the extension, VS Code's integrated terminal. */
export interface TerminalHost {
  open(launch: TerminalLaunch): AgentTerminal;
}

export interface TerminalAgentsOptions {
  readonly logDir: string;
  readonly cliBinDir: string;
  /** While a terminal runs, Foreman heartbeats for its agent, as for a background process. */
  readonly heartbeatEveryMs: number;
  readonly onHeartbeat: (run: { workerId: string; attempt: number }) => unknown;
  /** The heartbeat's clock; default the system's. */
  readonly clock?: Clock;
  readonly log?: (line: string) => void;
}

interface LiveTerminal {
  readonly terminal: AgentTerminal;
  readonly exited: Promise<AgentExit>;
  closing: boolean;
}

export class TerminalAgents {
  private readonly live = new Map<string, LiveTerminal>();
  private readonly finished = new Map<string, string>();

  constructor(
    private readonly host: TerminalHost,
    private readonly options: TerminalAgentsOptions,
  ) {}

  launch(spec: AgentLaunchSpec): Result<{ logFile: string; exited: Promise<AgentExit> }> {
    if (this.live.has(spec.workerId)) {
      return refused('agentAlreadyRunning', `Worker '${spec.workerId}' already has an agent terminal; cancel it first.`);
    }
    const plan = planLaunch(spec, this.options.logDir, this.options.cliBinDir, { terminal: true });
    if (!plan.ok) return plan;
    const { executable, args, environment, paths } = plan.value;
    if (plan.value.writesPromptFile) writePromptFile(paths, spec.prompt);
    const name = `Foreman agent: ${spec.workerId} · ${spec.taskId} (attempt ${spec.attempt})`;
    closeSync(openAttemptLog(paths.logFile, [spec.profile.command, ...args], spec.worktree, Date.now()).descriptor);
    appendLogLine(paths.logFile, `runs in the terminal "${name}"; its output stays there`);
    let terminal: AgentTerminal;
    try {
      terminal = this.host.open({
        name,
        executable,
        args,
        cwd: spec.worktree,
        env: environment,
        ...(spec.profile.prompt === 'stdin' ? { input: spec.prompt } : {}),
      });
    } catch (error) {
      appendLogLine(paths.logFile, `launch failed: ${String(error)}`);
      return refused('terminalFailed', `Could not open a terminal for the agent of '${spec.workerId}': ${String(error)}`);
    }
    const heartbeat = (this.options.clock ?? systemClock).every(() => this.beat(spec), this.options.heartbeatEveryMs);
    const entry: LiveTerminal = {
      terminal,
      closing: false,
      exited: terminal.exited.then((code) => {
        heartbeat.dispose();
        const reason =
          code === undefined
            ? `the terminal "${name}" was ${entry.closing ? 'closed by Foreman (cancel)' : 'closed while the agent ran'}`
            : `the agent in the terminal "${name}" exited ${code}`;
        appendLogLine(paths.logFile, reason);
        this.live.delete(spec.workerId);
        this.finished.set(spec.workerId, reason);
        this.options.log?.(`agent for ${spec.workerId}: ${reason}`);
        return { code: code ?? null, signal: null, reason };
      }),
    };
    this.live.set(spec.workerId, entry);
    this.options.log?.(`agent for ${spec.workerId} started in the terminal "${name}"`);
    return ok({ logFile: paths.logFile, exited: entry.exited });
  }

  /** Whether this worker's agent runs here (in a terminal). */
  has(workerId: string): boolean {
    return this.live.has(workerId);
  }

  cancel(workerId: string): Promise<AgentExit | undefined> {
    const entry = this.live.get(workerId);
    if (!entry) return Promise.resolve(undefined);
    entry.closing = true;
    entry.terminal.close();
    return entry.exited;
  }

  signals(workerId: string): AgentSignals | undefined {
    if (this.live.has(workerId)) return { alive: true };
    const reason = this.finished.get(workerId);
    return reason === undefined ? undefined : { alive: false, exitedReason: reason };
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.live.keys()].map((workerId) => this.cancel(workerId)));
  }

  private beat(spec: AgentLaunchSpec): void {
    const run = { workerId: spec.workerId, attempt: spec.attempt };
    safeCall(`heartbeat for ${spec.workerId}`, () => this.options.onHeartbeat(run), this.options.log);
  }
}

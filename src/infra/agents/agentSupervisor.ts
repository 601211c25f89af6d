/**
 * Launches agents as child processes and watches them (ARCHITECTURE §4, §6). Each agent runs in
 * its own process group (spawned detached), with cwd = its worktree, argv from its profile and no
 * shell; its output goes straight into a per-attempt log. While the process lives the supervisor
 * heartbeats on its behalf, because a long silent model call is not death. Cancel ends the whole
 * group: SIGTERM, then SIGKILL after a grace period.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type Result, ok, refused } from '../../core/result';
import type { AgentExit } from '../../engine/ports';
import type { AgentEvent } from '../../core/agentEvents';
import { type AttemptPaths, appendLogLine, lastOutputTime, openAttemptLog, writePromptFile, writeRunFiles } from './attemptLog';
import { EventStream } from './eventStream';
import type { AgentAdapter } from './kinds';
import { verdictOf } from './runVerdict';
import { safeCall } from './safeCall';
import { describeExit } from './exitReason';
import { type AgentLaunchSpec, planLaunch } from './launchPlan';
import { isAlive, isGroupAlive, signalGroup } from './processes';

export type { AgentExit } from '../../engine/ports';
export type { AgentLaunchSpec } from './launchPlan';
export { describeExit } from './exitReason';
export { isAlive } from './processes';

export interface AgentSupervisorOptions {
  /** Folder for `<taskId>/attempt-<n>.log` and `.prompt.md` (normally `.foreman/logs`). */
  readonly logDir: string;
  /** Put first on the agent's PATH: holds an executable named `foreman`. */
  readonly cliBinDir: string;
  /** Time between SIGTERM and SIGKILL on cancel; default 5000. */
  readonly graceMs?: number;
  /** Supervisor-side heartbeat period while an agent's process lives; default 15000. */
  readonly heartbeatEveryMs?: number;
  /** May be async; a failure is logged, never thrown into the timer. */
  readonly onHeartbeat?: (run: AgentRun) => unknown;
  /** The agent's events as they are read (tool calls, usage, its session); may be async, a failure is logged. */
  readonly onEvents?: (run: AgentRun, events: readonly AgentEvent[]) => unknown;
  /** Called before `exited` resolves; may be async, a failure is logged. */
  readonly onExit?: (run: AgentRun, outcome: AgentExit) => unknown;
  readonly log?: (line: string) => void;
}

/** A launched agent process. `lastOutputAt` is read from the log when asked (epoch ms; undefined before any output). */
export interface AgentRun {
  readonly workerId: string;
  readonly taskId: string;
  readonly attempt: number;
  /** The profile's agent kind: claude, codex, aider, command. */
  readonly kind: string;
  readonly pid: number;
  readonly logFile: string;
  readonly startedAt: number;
  /** Whether it continues an earlier session of the agent. */
  readonly resumed: boolean;
  readonly lastOutputAt: number | undefined;
  readonly exited: Promise<AgentExit>;
}

/** What the monitor combines with heartbeats and commits into a liveness verdict. */
export interface AgentSignals {
  readonly alive: boolean;
  readonly pid?: number;
  readonly lastOutputAt?: number;
  readonly exitedReason?: string;
}

interface LiveRun {
  readonly run: AgentRun;
  /** Set once cancel began; the exit reason then says so. */
  cancelled: boolean;
  /** Set once SIGKILL had to follow SIGTERM. */
  escalated: boolean;
  cancelling?: Promise<AgentExit>;
}

/** What `launch` hands to `track`. */
interface Launched {
  readonly paths: AttemptPaths;
  /** Log size after our header: anything beyond it was written by the agent. */
  readonly outputStart: number;
  /** Stream size at launch: earlier runs of the attempt wrote what comes before. */
  readonly streamStart: number;
  readonly startedAt: number;
  readonly adapter: AgentAdapter | undefined;
  readonly resumed: boolean;
}

/** How often a running agent's event stream is read: the dashboard's activity lags it by at most this. */
const eventPollMs = 250;

/** How often cancel looks whether the group has gone; short, and only during a cancel. */
const cancelPollMs = 25;
/** How long cancel waits for SIGKILL to take effect before it reports and returns. */
const killWaitMs = 2000;

export class AgentSupervisor {
  private readonly live = new Map<string, LiveRun>();
  /** The last finished run per worker, so liveness can still say why it ended. */
  private readonly finished = new Map<string, { pid: number; lastOutputAt: number | undefined; reason: string }>();
  private readonly graceMs: number;
  private readonly heartbeatEveryMs: number;
  private readonly cliBinDir: string;
  private disposed = false;

  constructor(private readonly options: AgentSupervisorOptions) {
    this.graceMs = options.graceMs ?? 5000;
    this.heartbeatEveryMs = options.heartbeatEveryMs ?? 15000;
    this.cliBinDir = resolve(options.cliBinDir);
  }

  launch(spec: AgentLaunchSpec): Result<AgentRun> {
    if (this.disposed) return refused('supervisorDisposed', 'Foreman is shutting down; no agent can be launched now.');
    const current = this.live.get(spec.workerId);
    if (current) {
      const { pid, taskId, attempt } = current.run;
      const message = `Worker '${spec.workerId}' already runs an agent (pid ${pid}, task ${taskId} attempt ${attempt}); cancel it first.`;
      return refused('agentAlreadyRunning', message, { pid });
    }
    const plan = planLaunch(spec, this.options.logDir, this.cliBinDir);
    if (!plan.ok) return plan;
    const { executable, args, environment, paths, adapter } = plan.value;
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
        // stdin is /dev/null unless the prompt goes there, so an agent never waits on a terminal.
        stdio: [spec.profile.prompt === 'stdin' ? 'pipe' : 'ignore', stream ?? log.descriptor, log.descriptor],
      });
    } finally {
      closeSync(log.descriptor);
      if (stream !== undefined) closeSync(stream);
    }
    child.on('error', (error) => this.say(`agent for ${spec.workerId}: ${error.message}`));
    const pid = child.pid;
    if (pid === undefined) {
      appendLogLine(paths.logFile, 'launch failed: the process did not start');
      return refused('agentLaunchFailed', `The agent command '${spec.profile.command}' could not be started.`);
    }
    if (child.stdin) {
      // An agent may exit (or close stdin) before reading it all; that is its business, not a crash of ours.
      child.stdin.on('error', (error) => this.say(`agent ${pid} stdin: ${error.message}`));
      child.stdin.end(spec.prompt);
    }
    return ok(
      this.track(spec, pid, child, { paths, outputStart: log.outputStart, streamStart, startedAt, adapter, resumed: plan.value.resumed }),
    );
  }

  /** The live run of a worker, if any. */
  running(workerId: string): AgentRun | undefined {
    return this.live.get(workerId)?.run;
  }

  runs(): AgentRun[] {
    return [...this.live.values()].map((entry) => entry.run);
  }

  /** Liveness inputs for the monitor; undefined when this supervisor never ran an agent for the worker. */
  signals(workerId: string): AgentSignals | undefined {
    const current = this.live.get(workerId);
    if (current) {
      const { pid, lastOutputAt } = current.run;
      return lastOutputAt === undefined ? { alive: isAlive(pid), pid } : { alive: isAlive(pid), pid, lastOutputAt };
    }
    const last = this.finished.get(workerId);
    if (!last) return undefined;
    const base = { alive: false, pid: last.pid, exitedReason: last.reason };
    return last.lastOutputAt === undefined ? base : { ...base, lastOutputAt: last.lastOutputAt };
  }

  /** Ends the worker's agent and its whole process group; resolves once the group is gone. */
  cancel(workerId: string): Promise<AgentExit | undefined> {
    const current = this.live.get(workerId);
    if (!current) return Promise.resolve(undefined);
    current.cancelling ??= this.terminate(current);
    return current.cancelling;
  }

  /** Cancels every run; no launch is accepted afterwards. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.live.keys()].map((workerId) => this.cancel(workerId)));
  }

  private track(spec: AgentLaunchSpec, pid: number, child: ChildProcess, launched: Launched): AgentRun {
    const { paths, outputStart, streamStart, startedAt, adapter, resumed } = launched;
    const logFile = paths.logFile;
    let settle: (exit: AgentExit) => void = () => undefined;
    const exited = new Promise<AgentExit>((resolveExit) => (settle = resolveExit));
    let frozenOutputAt: number | undefined;
    let ended = false;
    const run: AgentRun = {
      workerId: spec.workerId,
      taskId: spec.taskId,
      attempt: spec.attempt,
      kind: spec.profile.kind,
      pid,
      logFile,
      startedAt,
      resumed,
      // Read from the log each time; frozen at exit so our closing line does not count as output.
      get lastOutputAt() {
        return ended ? frozenOutputAt : lastOutputTime(logFile, outputStart);
      },
      exited,
    };
    const stream = adapter?.streamsEvents
      ? new EventStream(
          paths.streamFile,
          paths.eventsFile,
          adapter.parser(resumed),
          (events) => this.notify(`events of ${spec.workerId}`, () => this.options.onEvents?.(run, events)),
          streamStart,
        )
      : undefined;
    const reading = stream
      ? setInterval(() => this.notify(`reading events of ${spec.workerId}`, () => stream.poll()), eventPollMs)
      : undefined;
    reading?.unref();
    const heartbeat = setInterval(() => this.heartbeat(run), this.heartbeatEveryMs);
    heartbeat.unref();
    const entry: LiveRun = { run, cancelled: false, escalated: false };
    this.live.set(spec.workerId, entry);
    child.once('exit', (code, signal) => {
      frozenOutputAt = lastOutputTime(logFile, outputStart);
      ended = true;
      clearInterval(heartbeat);
      clearInterval(reading);
      if (stream) this.notify(`reading events of ${spec.workerId}`, () => stream.finish());
      const reason = describeExit(pid, code, signal, entry, this.graceMs);
      const verdict = verdictOf(adapter, { code, signal, reason }, paths, outputStart, stream);
      const outcome: AgentExit = { code, signal, reason, verdict };
      appendLogLine(logFile, outcome.reason);
      this.live.delete(spec.workerId);
      this.finished.set(spec.workerId, { pid, lastOutputAt: frozenOutputAt, reason: outcome.reason });
      this.say(`agent for ${spec.workerId}: ${outcome.reason}`);
      this.notify(`onExit for ${spec.workerId}`, () => this.options.onExit?.(run, outcome));
      settle(outcome);
    });
    this.say(`agent for ${spec.workerId} started: pid ${pid}, task ${spec.taskId} attempt ${spec.attempt}, log ${logFile}`);
    return run;
  }

  private heartbeat(run: AgentRun): void {
    // The interval is cleared at exit; the check covers a process that died unseen (e.g. a lost exit event).
    if (!isAlive(run.pid)) return;
    this.notify(`heartbeat for ${run.workerId}`, () => this.options.onHeartbeat?.(run));
  }

  private notify(what: string, callback: () => unknown): void {
    safeCall(what, callback, (line) => this.say(line));
  }

  private async terminate(entry: LiveRun): Promise<AgentExit> {
    const { pid, workerId } = entry.run;
    entry.cancelled = true;
    const stillRunning = (): boolean => isGroupAlive(pid) || isAlive(pid);
    this.say(`cancel ${workerId}: SIGTERM to process group ${pid}`);
    this.signal(pid, 'SIGTERM');
    const deadline = Date.now() + this.graceMs;
    while (stillRunning() && Date.now() < deadline) await delay(cancelPollMs);
    if (stillRunning()) {
      entry.escalated = true;
      this.say(`cancel ${workerId}: still running after ${this.graceMs} ms, SIGKILL to process group ${pid}`);
      this.signal(pid, 'SIGKILL');
      // SIGKILL cannot be ignored, so this wait only covers the kernel tearing the processes down;
      // it is bounded because a process stuck in the kernel (or one we may not signal) never goes.
      const killDeadline = Date.now() + killWaitMs;
      while (stillRunning() && Date.now() < killDeadline) await delay(cancelPollMs);
      if (stillRunning()) this.say(`cancel ${workerId}: process group ${pid} still has processes after SIGKILL`);
    }
    return entry.run.exited;
  }

  /** The group, and the leader by itself in case it left the group (setsid); a vanished target is fine. */
  private signal(pid: number, signal: NodeJS.Signals): void {
    try {
      signalGroup(pid, signal);
    } catch (error) {
      this.say(`signal ${signal} to group ${pid} failed: ${String(error)}`);
    }
    try {
      if (isAlive(pid)) process.kill(pid, signal);
    } catch {
      // It exited between the check and the signal.
    }
  }

  private say(line: string): void {
    this.options.log?.(line);
  }
}

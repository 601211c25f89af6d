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
import type { AgentConfinement } from '../../core/agentConfinement';
import { type AttemptPaths, appendLogLine, lastOutputTime, openAttemptLog, writePromptFile, writeRunFiles } from './attemptLog';
import { EventStream } from './eventStream';
import type { AgentAdapter } from './kinds';
import { verdictOf } from './runVerdict';
import { safeCall } from './safeCall';
import { describeExit } from './exitReason';
import { type AgentLaunchSpec, planLaunch } from './launchPlan';
import { isAlive, isGroupAlive, signalGroup } from './processes';
import { OwnerWatches } from './ownerWatch';
import { AgentVitals, type VitalsSettings, defaultVitals } from './agentVitals';
import { AgentConversation } from './agentConversation';
import { PlanApproval, type PlanAnswer } from './planApproval';

/** The later of two optional times. */
function latest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

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
  /** May be async; a failure is logged, never thrown into the timer. `activity`: what the agent is at, when Foreman can say. */
  readonly onHeartbeat?: (run: AgentRun, activity?: string) => unknown;
  /** The agent stalled (see AgentVitals): once per stall, and no heartbeat for it until it acts again. */
  readonly onStall?: (run: AgentRun, reason: string) => unknown;
  /**
   * Its stall is a rate limit it keeps retrying (every retry a 429): pause it instead, resuming
   * after `waitMs` (the agent's own next try). Without it such a stall is reported as any other.
   */
  readonly onRateLimit?: (run: AgentRun, reason: string, waitMs: number) => unknown;
  /** When an agent with an event stream counts as stalled; default `defaultVitals`. */
  readonly vitals?: VitalsSettings;
  /** The agent's events as they are read (tool calls, usage, its session); may be async, a failure is logged. */
  readonly onEvents?: (run: AgentRun, events: readonly AgentEvent[]) => unknown;
  /** A person's answer to the agent's plan, taken once (plan-first runs: planApproval.ts). */
  readonly takeAnswer?: (run: AgentRun) => Promise<PlanAnswer | undefined>;
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
  /** How the run is confined (its adapter's plan). */
  readonly confinement: AgentConfinement;
  readonly lastOutputAt: number | undefined;
  readonly exited: Promise<AgentExit>;
}

/** What the monitor combines with heartbeats and commits into a liveness verdict. */
export interface AgentSignals {
  readonly alive: boolean;
  readonly pid?: number;
  readonly lastOutputAt?: number;
  readonly exitedReason?: string;
  /** Why the agent counts as stalled although its process lives ("no output from the agent for 5m00s"). */
  readonly stalled?: string;
}

interface LiveRun {
  readonly run: AgentRun;
  /** Set once cancel began; the exit reason then says so. */
  cancelled: boolean;
  /** Set once SIGKILL had to follow SIGTERM. */
  escalated: boolean;
  cancelling?: Promise<AgentExit>;
  /** Read from the agent's stream when it has one: what says it is stalled. */
  readonly vitals?: AgentVitals;
  /** The stall reported, until the agent shows life again. */
  stalled?: string;
  /** Its stdin, when the agent takes a person's messages while it runs (agentConversation.ts). */
  readonly conversation?: AgentConversation;
  /** A plan-first run's plan, waiting for a person or approved (planApproval.ts). */
  readonly planApproval?: PlanApproval;
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
  readonly conversation: AgentConversation | undefined;
  readonly confinement: AgentConfinement;
  /** The agent asks for its permissions on stdin: its plan waits for a person. */
  readonly asksOnStdin: boolean;
}

/** How often a running agent's event stream is read: the dashboard's activity lags it by at most this. */
const eventPollMs = 250;

/** What a worker whose agent a person interrupted is at (tell/interrupt). */
export const interruptedActivity = 'interrupted: waiting for your message (foreman tell) or a cancel';

/** What a worker whose plan waits for a person is at. */
export const planWaitActivity = 'waiting for you to approve its plan (foreman answer)';

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
  /** Each agent's watchdog: it stops the agent and saves its work if this owner goes away (ownerWatch.ts). */
  readonly watches: OwnerWatches;

  constructor(private readonly options: AgentSupervisorOptions) {
    this.watches = new OwnerWatches(options.logDir, (line) => this.say(line));
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
    child.on('error', (error) => this.say(`agent for ${spec.workerId}: ${error.message}`));
    const pid = child.pid;
    if (pid === undefined) {
      appendLogLine(paths.logFile, 'launch failed: the process did not start');
      return refused('agentLaunchFailed', `The agent command '${spec.profile.command}' could not be started.`);
    }
    let conversation: AgentConversation | undefined;
    if (child.stdin && talks && adapter.input) {
      conversation = new AgentConversation(child.stdin, adapter.input, `the agent of ${spec.workerId}`, (line) => this.say(line));
      conversation.start(stdinPrompt);
    } else if (child.stdin) {
      // An agent may exit (or close stdin) before reading it all; that is its business, not a crash of ours.
      child.stdin.on('error', (error) => this.say(`agent ${pid} stdin: ${error.message}`));
      child.stdin.end(spec.prompt);
    }
    const { workerId, taskId, attempt, worktree } = spec;
    this.watches.watch({ workerId, taskId, attempt, pid, worktree, graceMs: this.graceMs }, child);
    const { resumed } = plan.value;
    return ok(
      this.track(spec, pid, child, { paths, outputStart: log.outputStart, streamStart, startedAt, adapter, resumed, conversation, confinement: plan.value.confinement, asksOnStdin: plan.value.asksOnStdin === true }),
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
      return {
        alive: isAlive(pid),
        pid,
        ...(lastOutputAt === undefined ? {} : { lastOutputAt }),
        ...(current.stalled ? { stalled: current.stalled } : {}),
      };
    }
    const last = this.finished.get(workerId);
    if (!last) return undefined;
    const base = { alive: false, pid: last.pid, exitedReason: last.reason };
    return last.lastOutputAt === undefined ? base : { ...base, lastOutputAt: last.lastOutputAt };
  }

  /** A person's message to the worker's running agent, written to its stdin (agentConversation.ts). */
  tell(workerId: string, text: string): Result<{ run: AgentRun; waited: boolean }> {
    const found = this.conversationOf(workerId);
    if (!found.ok) return found;
    const told = found.value.conversation.tell(text);
    if (!told.ok) return told;
    // Its silence while it waited was on purpose: the silence bound counts from the message.
    this.live.get(workerId)?.vitals?.sign(Date.now());
    return ok({ run: found.value.run, waited: told.value.waited });
  }

  /** Ends the running turn of the worker's agent; its session stays and waits for a message. */
  interrupt(workerId: string): Result<AgentRun> {
    const found = this.conversationOf(workerId);
    if (!found.ok) return found;
    const interrupted = found.value.conversation.interrupt();
    return interrupted.ok ? ok(found.value.run) : interrupted;
  }

  private conversationOf(workerId: string): Result<{ run: AgentRun; conversation: AgentConversation }> {
    const entry = this.live.get(workerId);
    if (!entry) return refused('noAgentRunning', `Worker '${workerId}' has no agent running on this machine.`);
    if (entry.cancelled) return refused('agentStopping', `The agent of '${workerId}' is being stopped.`);
    if (!entry.conversation) {
      const { kind } = entry.run;
      const when =
        kind === 'codex'
          ? 'Codex takes messages between turns only: send yours as a review note (request-changes) when its work is in review.'
          : `a '${kind}' agent reads no messages while it runs.`;
      return refused('agentTakesNoMessages', `The agent of '${workerId}' cannot be talked to while it runs: ${when}`, { kind });
    }
    return ok({ run: entry.run, conversation: entry.conversation });
  }

  /** Ends the worker's agent and its whole process group; resolves once the group is gone. */
  cancel(workerId: string): Promise<AgentExit | undefined> {
    const current = this.live.get(workerId);
    if (!current) return Promise.resolve(undefined);
    current.cancelling ??= this.terminate(current);
    return current.cancelling;
  }

  /**
   * The owner stops: every agent is stopped by its watchdog, as if the owner had gone (work saved,
   * outcome written for the next owner), then cancelled should a watchdog have failed. No launch
   * is accepted afterwards.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    const stop = async (workerId: string): Promise<unknown> => {
      const entry = this.live.get(workerId);
      if (entry) entry.cancelled = true;
      await this.watches.stop(workerId);
      return this.cancel(workerId);
    };
    await Promise.all([...this.live.keys()].map(stop));
  }

  private track(spec: AgentLaunchSpec, pid: number, child: ChildProcess, launched: Launched): AgentRun {
    const { paths, outputStart, streamStart, startedAt, adapter, resumed, conversation, confinement } = launched;
    const prompts = adapter?.input?.permissions;
    const stdin = child.stdin;
    const planApproval =
      launched.asksOnStdin && conversation && prompts && stdin
        ? new PlanApproval(
            prompts,
            (line) => stdin.write(line),
            async () => this.options.takeAnswer?.(run),
            (line) => this.say(`${spec.workerId}: ${line}`),
          )
        : undefined;
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
      confinement,
      // Read from the log each time; frozen at exit so our closing line does not count as output.
      get lastOutputAt() {
        return ended ? frozenOutputAt : lastOutput();
      },
      exited,
    };
    const vitals = adapter?.streamsEvents ? new AgentVitals(startedAt, this.options.vitals ?? defaultVitals) : undefined;
    const stream = adapter?.streamsEvents
      ? new EventStream(
          paths.streamFile,
          paths.eventsFile,
          planApproval ? planApproval.reading(adapter.parser(resumed)) : adapter.parser(resumed),
          (events) => {
            for (const event of events) vitals?.event(event);
            const wasWaiting = conversation?.waitingForMessage;
            conversation?.events(events);
            if (conversation?.waitingForMessage && !wasWaiting) {
              this.notify(`heartbeat for ${spec.workerId}`, () => this.options.onHeartbeat?.(run, interruptedActivity));
            }
            this.notify(`events of ${spec.workerId}`, () => this.options.onEvents?.(run, events));
            // An end only a setting can fix (no login): stop the CLI's own retries, which cannot help.
            if (events.some((event) => event.type === 'result' && event.failure === 'authentication')) void this.cancel(spec.workerId);
          },
          streamStart,
        )
      : undefined;
    // The log holds stderr (or a command's whole output); an agent with a stream writes its events apart.
    const lastOutput = (): number | undefined => latest(lastOutputTime(logFile, outputStart), stream?.lastLineAt);
    const reading = stream
      ? setInterval(() => this.notify(`reading events of ${spec.workerId}`, () => stream.poll()), eventPollMs)
      : undefined;
    reading?.unref();
    const entry: LiveRun = {
      run,
      cancelled: false,
      escalated: false,
      ...(vitals ? { vitals } : {}),
      ...(conversation ? { conversation } : {}),
      ...(planApproval ? { planApproval } : {}),
    };
    const heartbeat = setInterval(() => this.heartbeat(entry, lastOutput), this.heartbeatEveryMs);
    heartbeat.unref();
    this.live.set(spec.workerId, entry);
    child.once('exit', (code, signal) => {
      frozenOutputAt = lastOutput();
      ended = true;
      clearInterval(heartbeat);
      clearInterval(reading);
      planApproval?.dispose();
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
    // What the card said before (setting up the worktree) is over: say the agent runs now.
    this.notify(`heartbeat for ${spec.workerId}`, () => this.options.onHeartbeat?.(run, `started ${spec.profile.kind} (pid ${pid})`));
    return run;
  }

  /**
   * Beats for a live agent that shows signs of life. A stalled one gets no beat (so nothing keeps it
   * looking healthy) and its stall is reported once; its next sign of life brings the beats back.
   */
  private heartbeat(entry: LiveRun, lastOutput: () => number | undefined): void {
    const { run, vitals } = entry;
    // The interval is cleared at exit; the check covers a process that died unseen (e.g. a lost exit event).
    if (!isAlive(run.pid)) return;
    // Interrupted, it waits for a person: quiet on purpose, neither stalled nor failed.
    if (entry.conversation?.waitingForMessage) {
      entry.stalled = undefined;
      this.notify(`heartbeat for ${run.workerId}`, () => this.options.onHeartbeat?.(run, interruptedActivity));
      return;
    }
    if (entry.planApproval?.waiting) {
      // A person may take long to read a plan: the silence bound counts from their answer.
      vitals?.sign(Date.now());
      entry.stalled = undefined;
      this.notify(`heartbeat for ${run.workerId}`, () => this.options.onHeartbeat?.(run, planWaitActivity));
      return;
    }
    const output = lastOutput();
    if (output !== undefined) vitals?.sign(output);
    const state = vitals?.check(Date.now()) ?? { healthy: true };
    if (!state.healthy) {
      if (entry.stalled === undefined) {
        entry.stalled = state.reason;
        this.say(`agent for ${run.workerId} stalled: ${state.reason}`);
        const { rateLimit } = state;
        const onRateLimit = this.options.onRateLimit;
        if (rateLimit && onRateLimit) this.notify(`rate limit of ${run.workerId}`, () => onRateLimit(run, state.reason, rateLimit.waitMs));
        else this.notify(`stall of ${run.workerId}`, () => this.options.onStall?.(run, state.reason));
      }
      return;
    }
    entry.stalled = undefined;
    this.notify(`heartbeat for ${run.workerId}`, () => this.options.onHeartbeat?.(run, state.activity));
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

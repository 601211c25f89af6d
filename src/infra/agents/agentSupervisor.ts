/**
 * Launches agents as child processes and watches them (ARCHITECTURE §4, §6). Each agent runs in
 * its own process group (agentSpawn.ts), its output straight into a per-attempt log. While the
 * process lives the supervisor heartbeats on its behalf (runHeartbeat.ts), because a long silent
 * model call is not death. Cancel ends the whole group: SIGTERM, then SIGKILL after a grace period
 * (agentTermination.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { type Result, ok, refused } from '../../core/result';
import { DisposableStore } from '../../base/lifetime';
import { type AgentExit, type Clock, systemClock } from '../../engine/ports';
import { appendLogLine, lastOutputTime } from './attemptLog';
import { EventStream } from './eventStream';
import { verdictOf } from './runVerdict';
import { safeCall } from './safeCall';
import { describeExit } from './exitReason';
import type { AgentLaunchSpec } from './launchPlan';
import { isAlive } from './processes';
import { OwnerWatches } from './ownerWatch';
import { AgentVitals, type VitalsSettings, defaultVitals } from './agentVitals';
import type { AgentConversation } from './agentConversation';
import { PlanApproval } from './planApproval';
import { type AgentRun, type AgentSignals, type LiveRun, type RunCallbacks, interruptedActivity } from './agentRun';
import { type Launched, spawnAgent } from './agentSpawn';
import { heartbeat } from './runHeartbeat';
import { terminateRun } from './agentTermination';

/** The later of two optional times. */
function latest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

export type { AgentExit } from '../../engine/ports';
export type { AgentLaunchSpec } from './launchPlan';
export type { AgentRun, AgentSignals } from './agentRun';
export { describeExit } from './exitReason';
export { isAlive } from './processes';

/** The callbacks (agentRun.ts) may be async; a failure is logged, never thrown into the timer. */
export interface AgentSupervisorOptions extends RunCallbacks {
  /** Folder for `<taskId>/attempt-<n>.log` and `.prompt.md` (normally `.foreman/logs`). */
  readonly logDir: string;
  /** Put first on the agent's PATH: holds an executable named `foreman`. */
  readonly cliBinDir: string;
  /** Time between SIGTERM and SIGKILL on cancel; default 5000. */
  readonly graceMs?: number;
  /** Supervisor-side heartbeat period while an agent's process lives; default 15000. */
  readonly heartbeatEveryMs?: number;
  /** When an agent with an event stream counts as stalled; default `defaultVitals`. */
  readonly vitals?: VitalsSettings;
  /** The timers' clock (heartbeats, event reads, plan answers); default the system's. */
  readonly clock?: Clock;
  readonly log?: (line: string) => void;
}

/** How often a running agent's event stream is read: the dashboard's activity lags it by at most this. */
const eventPollMs = 250;

export class AgentSupervisor {
  private readonly live = new Map<string, LiveRun>();
  /** The last finished run per worker, so liveness can still say why it ended. */
  private readonly finished = new Map<string, { pid: number; lastOutputAt: number | undefined; reason: string }>();
  private readonly graceMs: number;
  private readonly heartbeatEveryMs: number;
  private readonly cliBinDir: string;
  /** The timers' clock: heartbeats, event reads, plan answers, cancels' waits (SupervisedAgents' too). */
  readonly clock: Clock;
  /** Disposed when the owner stops: no launch is accepted afterwards. */
  private readonly lifetime = new DisposableStore();
  /** Each agent's watchdog: it stops the agent and saves its work if this owner goes away (ownerWatch.ts). */
  readonly watches: OwnerWatches;

  constructor(private readonly options: AgentSupervisorOptions) {
    this.clock = options.clock ?? systemClock;
    this.watches = new OwnerWatches(options.logDir, (line) => this.say(line), this.clock);
    this.graceMs = options.graceMs ?? 5000;
    this.heartbeatEveryMs = options.heartbeatEveryMs ?? 15000;
    this.cliBinDir = resolve(options.cliBinDir);
  }

  launch(spec: AgentLaunchSpec): Result<AgentRun> {
    if (this.lifetime.isDisposed) return refused('supervisorDisposed', 'Foreman is shutting down; no agent can be launched now.');
    const current = this.live.get(spec.workerId);
    if (current) {
      const { pid, taskId, attempt } = current.run;
      const message = `Worker '${spec.workerId}' already runs an agent (pid ${pid}, task ${taskId} attempt ${attempt}); cancel it first.`;
      return refused('agentAlreadyRunning', message, { pid });
    }
    const spawned = spawnAgent(spec, this.options.logDir, this.cliBinDir, (line) => this.say(line));
    if (!spawned.ok) return spawned;
    const { child, pid, launched } = spawned.value;
    const { workerId, taskId, attempt, worktree } = spec;
    this.watches.watch({ workerId, taskId, attempt, pid, worktree, graceMs: this.graceMs }, child);
    return ok(this.track(spec, pid, child, launched));
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
    current.cancelling ??= terminateRun(current, this.graceMs, (line) => this.say(line), this.clock);
    return current.cancelling;
  }

  /**
   * The owner stops: every agent is stopped by its watchdog, as if the owner had gone (work saved,
   * outcome written for the next owner), then cancelled should a watchdog have failed. No launch
   * is accepted afterwards.
   */
  async dispose(): Promise<void> {
    this.lifetime.dispose();
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
            this.clock,
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
    const reading = stream && this.clock.every(() => this.notify(`reading events of ${spec.workerId}`, () => stream.poll()), eventPollMs);
    const entry: LiveRun = {
      run,
      cancelled: false,
      escalated: false,
      ...(vitals ? { vitals } : {}),
      ...(conversation ? { conversation } : {}),
      ...(planApproval ? { planApproval } : {}),
    };
    const heartbeatTimer = this.clock.every(
      () => heartbeat(entry, lastOutput, this.options, (line) => this.say(line)),
      this.heartbeatEveryMs,
    );
    this.live.set(spec.workerId, entry);
    child.once('exit', (code, signal) => {
      frozenOutputAt = lastOutput();
      ended = true;
      heartbeatTimer.dispose();
      reading?.dispose();
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

  private notify(what: string, callback: () => unknown): void {
    safeCall(what, callback, (line) => this.say(line));
  }

  private say(line: string): void {
    this.options.log?.(line);
  }
}

import { type Result, ok } from '../core/result';
import { taskCommitMessage } from '../core/taskCommitMessage';
import { WorkerState } from '../core/workerMachine';
import { findSession } from './agentSessions';
import type { AgentExit, AgentPort, AgentVerdict, GitPort, LaunchedAgent, WorkRef, WorktreeSetupPort } from './ports';
import { type TaskRow, type WorkerRow, findWorker } from './rows';
import type { FailEnd } from './stateService';
import type { Transactor } from './transactor';

export interface AgentRunnerSettings {
  /** Runs the verify command in a worktree (seed 003's validating step); absent when none is set. */
  readonly verify?: (worktree: string) => Promise<Result<void>>;
  /** Copies files, runs the setup command and hands out ports before an agent starts a task. */
  readonly setup?: WorktreeSetupPort;
  /** Submit an agent's run that changed nothing (default: it fails with "finished without changes"). */
  readonly allowEmptyResults?: boolean;
  readonly log?: (line: string) => void;
  /**
   * How long a worker pauses on a usage or rate limit whose reset the agent did not say; undefined:
   * limits are not paused for (an ordinary failed attempt).
   */
  readonly limitPauseMs?: number;
  /** How often Foreman heartbeats for a worker while nothing else does (setup, verify); default 15000. */
  readonly heartbeatEveryMs?: number;
}

/** What each unsuccessful verdict ends: the attempt, the task, or the worker's run until it is set up. */
const failEnds: Readonly<Record<Exclude<AgentVerdict['outcome'], 'success'>, FailEnd>> = {
  failed: 'attempt',
  configuration: 'final',
  setup: 'setup',
  // With pausing switched off, a limit is an ordinary failed attempt.
  limit: 'attempt',
};

/** What to do about a profile whose command is missing, in the words of the profile's settings. */
function setupAdvice(profile: string): string {
  return `Install it, or set the command's full path in the agent profile '${profile}' (foreman.agents or .foreman/settings.json), then Reset the worker.`;
}

/** Why an agent is launched: a task's first run, or a follow-up that continues its session. */
export type RunReason = { readonly kind: 'task' } | { readonly kind: 'followUp'; readonly note: string };

function portEnvironment(port: number | undefined): Record<string, string> {
  return port === undefined ? {} : { FOREMAN_PORT: String(port) };
}

/** Launch refusals that only a change of settings fixes (ARCHITECTURE §6 profiles). */
const configurationRefusals = new Set(['terminalProfile']);
/** Launch refusals that say the worker's agent cannot run here at all: the worker needs setup, the task is not to blame. */
const setupRefusals = new Set(['agentCommandNotFound', 'unknownAgentProfile']);

/**
 * One agent run of a task attempt, from setup to verdict (ARCHITECTURE §6): the worktree set up
 * (files, install step, port), the agent launched — or its session resumed for a follow-up —
 * and its end turned into a submit (with the agent's own last message as the summary), a failed
 * attempt, or a failure for good when only a settings change can help or nothing changed.
 */
export class AgentRunner {
  constructor(
    private readonly tx: Transactor,
    private readonly git: GitPort,
    private readonly agents: AgentPort,
    private readonly settings: AgentRunnerSettings,
    /** Runs an operation in the worker's queue (the crew's), after whatever it already does. */
    private readonly serialized: (workerId: string, operation: () => Promise<unknown>) => Promise<unknown>,
    private readonly isDisposed: () => boolean,
  ) {}

  /** Sets up a new task's worktree, then launches its agent; a setup that fails fails the attempt. */
  async startTask(work: WorkRef, worktree: string, worker: WorkerRow, task: TaskRow): Promise<void> {
    const port = this.settings.setup?.portFor(work.workerId) ?? ok(undefined);
    if (!port.ok) {
      this.fail(work, `setup failed: ${port.message}`, 'final');
      return;
    }
    const env = portEnvironment(port.value);
    const setup = this.settings.setup;
    if (setup) {
      const prepared = await this.whileHeartbeating(work, 'setting up the worktree', (progress) =>
        setup.prepare(work, worktree, env, progress),
      );
      if (!prepared.ok) {
        this.fail(work, `setup failed: ${prepared.message}`);
        return;
      }
    }
    this.launch(work, worktree, worker, task, { kind: 'task' }, env);
  }

  /** Continues the agent's session with a review note or a merge conflict; a fresh start when it is gone. */
  followUp(work: WorkRef, worktree: string, worker: WorkerRow, task: TaskRow, note: string): void {
    const port = this.settings.setup?.portFor(work.workerId);
    const env = portEnvironment(port?.ok ? port.value : undefined);
    this.launch(work, worktree, worker, task, { kind: 'followUp', note }, env);
  }

  private launch(
    work: WorkRef,
    worktree: string,
    worker: WorkerRow,
    task: TaskRow,
    reason: RunReason,
    env: Readonly<Record<string, string>>,
  ): void {
    // A setup that was under way when the owner began to close ends here: the store may be closed
    // already, and the worker's attempt is recovered by the next owner as an orphan's would be.
    if (this.isDisposed()) return;
    const session = reason.kind === 'followUp' ? this.tx.read((reader) => findSession(reader, work.taskId, work.attempt)) : undefined;
    const resumeSession = session?.sessionId ?? undefined;
    const fullPrompt = [task.title, task.prompt, reason.kind === 'followUp' ? reason.note : ''].filter(Boolean).join('\n\n');
    const launched = this.agents.launch({
      ...work,
      worktree,
      agent: worker.agent,
      env,
      // A resumed agent remembers the task: it gets only the note. A fresh one gets everything.
      prompt: fullPrompt,
      ...(resumeSession && reason.kind === 'followUp' ? { resumeSession, resumePrompt: reason.note } : {}),
      // A follow-up continues work a person already saw (an approved plan, a review): only a fresh run plans first.
      ...(task.plan_first && reason.kind === 'task' ? { planFirst: true } : {}),
    });
    if (!launched.ok) {
      // A broken profile fails every attempt the same way: fail for good now, so a person fixes the
      // setting and retries, instead of the task burning its attempts on backoff.
      if (setupRefusals.has(launched.code)) {
        const advice = launched.code === 'agentCommandNotFound' ? ` ${setupAdvice(worker.agent)}` : ' Define it, then Reset the worker.';
        this.fail(work, `${launched.message}${advice}`, 'setup');
        return;
      }
      const final = launched.kind === 'invalid' || configurationRefusals.has(launched.code);
      this.fail(work, `launch failed: ${launched.message}`, final ? 'final' : 'attempt');
      return;
    }
    const continuity =
      reason.kind === 'task' ? '' : launched.value.resumed ? 'continued its session' : 'a fresh start (its earlier session was gone)';
    const how = launched.value.pid === undefined ? 'in a terminal' : `pid ${launched.value.pid}`;
    this.settings.log?.(
      `crew: ${work.workerId} runs ${worker.agent} on ${work.taskId} (attempt ${work.attempt}, ${how}${continuity ? `, ${continuity}` : ''})`,
    );
    this.recordConfinement(work, launched.value);
    // Foreman's own step ("setting up the worktree") is over once the agent runs. A supervised process
    // says so with its first beat; a terminal's beats carry no words, so it is said here (issue 29).
    if (launched.value.pid === undefined) {
      this.tx.apply({
        command: 'heartbeat',
        args: { worker: work.workerId, status: 'working', attempt: work.attempt, activity: `started ${worker.agent} in a terminal` },
        actor: 'crew',
      });
    }
    void launched.value.exited.then((exit) => this.serialized(work.workerId, () => this.finished(work, task, worktree, exit, continuity)));
  }

  /** How the run is confined goes with its session from the start, so the worker's card says it while the agent works. */
  private recordConfinement(work: WorkRef, launched: LaunchedAgent): void {
    const { kind, confinement } = launched;
    if (kind === undefined || confinement === undefined) return;
    const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
    this.tx.apply({
      command: 'usage',
      args: { worker: work.workerId, attempt: work.attempt, kind, ...zero, run: false, confinement },
      actor: 'crew',
    });
  }

  /** Success → leftovers committed → changes? → verify → submit; otherwise a failed attempt, work kept. */
  private async finished(work: WorkRef, task: TaskRow, worktree: string, exit: AgentExit, continuity: string): Promise<void> {
    if (this.isDisposed()) return;
    const current = this.tx.read((reader) => findWorker(reader, work.workerId));
    if (current?.state !== WorkerState.Working || current.attempt !== work.attempt || current.task_id !== work.taskId) return;
    const verdict: AgentVerdict = exit.verdict ?? (exit.code === 0 ? { outcome: 'success' } : { outcome: 'failed', reason: exit.reason });
    if (verdict.outcome === 'limit' && this.settings.limitPauseMs !== undefined) {
      // The worktree and the session stay as they are: the same session continues at the reset.
      const until = verdict.resumesAt ?? Date.now() + this.settings.limitPauseMs;
      this.tx.apply({
        command: 'pause',
        args: { worker: work.workerId, attempt: work.attempt, reason: verdict.reason, until },
        actor: 'crew',
      });
      return;
    }
    if (verdict.outcome !== 'success') {
      await this.git.snapshot(work, `agent exited: ${exit.reason}`);
      this.fail(work, verdict.reason, failEnds[verdict.outcome]);
      return;
    }
    // What the agent left uncommitted is its work: titled by the task, explained by its own summary.
    await this.git.commitLeftovers(work, taskCommitMessage(task, verdict.summary));
    const summary = verdict.summary?.trim() || exit.reason;
    if (!this.settings.allowEmptyResults && (await this.git.changedFiles(work.branch)).length === 0) {
      // Nothing to review on the whole branch. Retrying would most likely "succeed" at nothing
      // again, at full price: a person decides. (A follow-up that changes nothing keeps the earlier work.)
      this.fail(work, `finished without changes: ${summary}`, 'final');
      return;
    }
    const verified = await this.verify(work, worktree);
    if (!verified.ok) {
      this.fail(work, `verify failed: ${verified.message}`);
      return;
    }
    const withContinuity = continuity ? `${summary}\n\n(Foreman: ${continuity}.)` : summary;
    this.tx.apply({
      command: 'submit',
      args: { worker: work.workerId, attempt: work.attempt, summary: withContinuity.slice(0, 10_000) },
      actor: 'crew',
    });
  }

  private fail(work: WorkRef, reason: string, end: FailEnd = 'attempt'): void {
    const how = end === 'final' ? { final: true } : end === 'setup' ? { setup: true } : {};
    this.tx.apply({
      command: 'fail',
      args: { worker: work.workerId, reason: reason.slice(0, 10_000), attempt: work.attempt, ...how },
      actor: 'crew',
    });
  }

  /**
   * The verify step after the agent exited. Nothing heartbeats for the worker then, so the crew
   * does: a test suite that runs longer than `staleMs` must not look like a dead worker and be retried.
   */
  private verify(work: WorkRef, worktree: string): Promise<Result<void>> {
    const verify = this.settings.verify;
    if (!verify) return Promise.resolve(ok(undefined));
    return this.whileHeartbeating(work, 'verifying', () => verify(worktree));
  }

  /** Heartbeats for the worker while Foreman itself works for it, with the step as its activity. */
  private async whileHeartbeating<T>(work: WorkRef, step: string, operation: (progress: (line: string) => void) => Promise<T>): Promise<T> {
    let activity = step;
    const heartbeat = () =>
      this.tx.apply({
        command: 'heartbeat',
        args: { worker: work.workerId, status: 'working', attempt: work.attempt, activity: activity.slice(0, 500) },
        actor: 'crew',
      });
    heartbeat();
    const timer = this.tx.clock.every(heartbeat, this.settings.heartbeatEveryMs ?? 15_000);
    try {
      return await operation((line) => {
        if (line.trim()) activity = `${step}: ${line.trim()}`;
      });
    } finally {
      timer.dispose();
    }
  }
}

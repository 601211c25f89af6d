import { workerFits } from '../core/actions';
import type { Request } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { taskCommitMessage } from '../core/taskCommitMessage';
import { WorkerState } from '../core/workerMachine';
import { SequencerByKey } from './async';
import type { Disposable } from './events';
import { AgentRunner, type AgentRunnerSettings } from './agentRunner';
import type { AgentPort, GitPort, MergeStrategy, WorkRef } from './ports';
import type { MergeReport, ResultOf } from './results';
import { type TaskRow, type WorkerRow, findTask, findWorker, readMeta } from './rows';
import { findPreviousAssignMetadata, findWorkerIdHolding, listWorkersOnHost, listWorkersWithAgents, setWorkerLastError } from './queries';
import type { Transactor } from './transactor';
import type { EngineEvent } from './unit';

/** Setup refusals that stay until a person moves something or changes a setting (worktrees.ts). */
const settingRefusals: ReadonlySet<string> = new Set(['pathOccupied']);

const noTalkMessage = 'No agents run in this process: talk to them through the owner that runs them (VS Code or `foreman serve`).';

/** States in which a worker's agent must not run any more. */
const stoppedStates: ReadonlySet<WorkerState> = new Set([WorkerState.Idle, WorkerState.Failed, WorkerState.Stale]);

export interface CrewSettings extends AgentRunnerSettings {
  readonly mergeStrategy: MergeStrategy;
}

/**
 * Where state meets git and agents (ARCHITECTURE §5, §6), internal to the engine: the flows of
 * `start`, `merge`, `cancel` and `reset` do their git work around their transactions; with an AgentPort (a long-running owner) it also launches agents on
 * assignment, relaunches them on review notes and merge conflicts, and turns their exits into
 * submits or failed attempts. Work is snapshotted before anything could lose it.
 */
export class Crew implements Disposable {
  private readonly perWorker = new SequencerByKey<string>();
  private readonly subscription: Disposable | undefined;
  private readonly runner: AgentRunner | undefined;
  private disposed = false;

  constructor(
    private readonly tx: Transactor,
    private readonly git: GitPort,
    private readonly agents: AgentPort | undefined,
    private readonly settings: CrewSettings,
    /** With several owners: this owner's machine; only its workers (and those of any host) are launched here. */
    private readonly host?: string,
  ) {
    this.subscription = agents ? tx.onDidCommit((events) => events.forEach((event) => this.react(event))) : undefined;
    this.runner = agents
      ? new AgentRunner(
          tx,
          git,
          agents,
          settings,
          (workerId, operation) => this.serialized(workerId, operation),
          () => this.disposed,
        )
      : undefined;
  }

  /** Prepares the worktree, then moves the worker to WORKING (and launches its agent, with agents). */
  start(request: Request<'start'>): Promise<Result<ResultOf<'start'>>> {
    return this.serialized(request.args.worker, () => this.startWorker(request.args.worker, request));
  }

  /** Merges the branch into the base (one merge at a time), then records the merge. */
  merge(request: Request<'merge'>): Promise<Result<ResultOf<'merge'>>> {
    return this.serialized(request.args.worker, () => this.mergeWorker(request.args.worker, request));
  }

  cancel(request: Request<'cancel'>): Promise<Result<ResultOf<'cancel'>>> {
    const target = request.args.target;
    return this.release(this.holderOf(target), 'cancelled', () => this.tx.step(request, (unit, s) => s.state.cancel(unit, target)));
  }

  reset(request: Request<'reset'>): Promise<Result<ResultOf<'reset'>>> {
    const workerId = request.args.worker;
    return this.release(workerId, 'reset', () => this.tx.step(request, (unit, s) => s.state.reset(unit, workerId)));
  }

  /** A person's message to the worker's running agent (no transaction: it goes to the agent's stdin and its events file). */
  tell(request: Request<'tell'>): Promise<Result<ResultOf<'tell'>>> {
    const { worker, text } = request.args;
    const port = this.talkingTo(worker);
    if (!port.ok) return Promise.resolve(port);
    const told = port.value.tell?.(worker, text) ?? refused('noAgents', noTalkMessage);
    return Promise.resolve(told.ok ? ok({ worker, ...told.value }) : told);
  }

  /** Ends the running turn of the worker's agent; its session stays and waits for a message. */
  interrupt(request: Request<'interrupt'>): Promise<Result<ResultOf<'interrupt'>>> {
    const { worker } = request.args;
    const port = this.talkingTo(worker);
    if (!port.ok) return Promise.resolve(port);
    const interrupted = port.value.interrupt?.(worker) ?? refused('noAgents', noTalkMessage);
    return Promise.resolve(
      interrupted.ok ? ok({ worker, taskId: interrupted.value.taskId, attempt: interrupted.value.attempt }) : interrupted,
    );
  }

  /** The agents of a worker this owner runs, working now. */
  private talkingTo(workerId: string): Result<AgentPort> {
    const worker = this.tx.read((reader) => findWorker(reader, workerId));
    if (!worker) return notFound('worker', workerId);
    if (!workerFits('talk', worker.state)) {
      return refused('notWorking', `Worker '${workerId}' is ${worker.state}; only a WORKING worker's agent takes messages.`, {
        from: worker.state,
      });
    }
    if (!this.agents) return refused('noAgents', noTalkMessage);
    if (!this.runsHere(worker))
      return refused('otherHost', `The agent of '${workerId}' runs on ${worker.host ?? 'another machine'}; talk to it there.`);
    return ok(this.agents);
  }

  /** After an owner restart: agents of WORKING workers are gone; save their work and retry. */
  async recoverOrphans(): Promise<void> {
    // Another owner's agents run on its machine: only this host's workers are orphans of a restart here.
    const workers = this.tx.read((reader) => listWorkersWithAgents(reader)).filter((worker) => this.runsHere(worker, true));
    for (const worker of workers) {
      if (worker.state === WorkerState.Assigned) {
        void this.serialized(worker.id, () => this.startWorker(worker.id));
        continue;
      }
      if (this.agents?.signals(worker.id)?.alive) continue;
      await this.serialized(worker.id, async () => {
        const work = this.workOf(worker);
        if (work) await this.git.snapshot(work, 'owner restarted');
        // Stopped by its watchdog with the last owner (ownerWatch.ts): said as such, not as a lost agent.
        const stopped = work ? this.agents?.stoppedWithOwner?.(work) : undefined;
        this.tx.internal('monitor', (unit, s) => {
          const current = findWorker(unit.tx, worker.id);
          if (current?.state !== WorkerState.Working) return ok(undefined);
          const reason = stopped ? `owner restarted: ${stopped.reason}` : 'owner restarted: its agent is not running';
          setWorkerLastError(unit.tx, worker.id, reason);
          return s.state.fail(unit, worker.id, reason);
        });
      });
    }
  }

  private async startWorker(workerId: string, request?: Request<'start'>): Promise<Result<ResultOf<'start'>>> {
    const found = this.load(workerId);
    if (!found.ok) return found;
    const { worker, task } = found.value;
    if (worker.state !== WorkerState.Assigned) {
      return refused('illegalTransition', `'${workerId}': A worker in ${worker.state} cannot start; only an ASSIGNED worker can.`, {
        from: worker.state,
        trigger: 'start',
      });
    }
    const work = this.workOf(worker);
    if (!work) return refused('noTask', `Worker '${workerId}' holds no task.`);
    const base = this.baseBranch();
    const startPoint =
      task.previous_branch && task.previous_branch !== work.branch && (await this.git.branchExists(task.previous_branch))
        ? task.previous_branch
        : base;
    const prepared = await this.git.prepare(work, startPoint, this.previousWork(workerId));
    if (!prepared.ok) {
      // A setup that no retry can fix (a folder in the way, a setting that names the main checkout)
      // fails the task for good at once, so a person acts now instead of after every backoff.
      const final = prepared.kind === 'invalid' || settingRefusals.has(prepared.code);
      this.tx.apply({
        command: 'fail',
        args: { worker: workerId, reason: `setup failed: ${prepared.message}`, attempt: work.attempt, ...(final ? { final } : {}) },
        actor: 'crew',
      });
      return prepared;
    }
    const header = request ?? { command: 'start', actor: 'crew' };
    const started = this.tx.step(header, (unit, s) => s.state.start(unit, workerId));
    if (!started.ok) return started;
    const runner = this.runner;
    if (runner) void this.serialized(workerId, () => runner.startTask(work, prepared.value.worktree, worker, task));
    return ok({ ...started.value, worktree: prepared.value.worktree });
  }

  private async mergeWorker(workerId: string, request: Request<'merge'>): Promise<Result<ResultOf<'merge'>>> {
    const found = this.load(workerId);
    if (!found.ok) return found;
    const { worker, task } = found.value;
    if (worker.state !== WorkerState.Approved) {
      return refused('illegalTransition', `'${workerId}': A worker in ${worker.state} cannot merge; only an APPROVED worker can.`, {
        from: worker.state,
        trigger: 'merge',
      });
    }
    const work = this.workOf(worker);
    if (!work) return refused('noTask', `Worker '${workerId}' holds no task.`);
    // An agent that submitted by itself may still run (an interactive one in a terminal): it must
    // not edit the worktree while the merge rebases it. What it left is committed by the merge.
    await this.stopAgent(workerId);
    // The merge (or squash) commit, and what the agent left uncommitted, read as the task's work.
    const message = taskCommitMessage(task, worker.summary);
    // Another machine's worker: its worktree is there, its work here is the branch it pushed on
    // submit, which this owner checks out in its own worktree for that worker, task after task.
    const source = this.runsHere(worker) ? 'worktree' : 'remote';
    const mergeOnce = () => this.git.merge(work, this.settings.mergeStrategy, this.settings.verify, message, source);
    let merged = await mergeOnce();
    if (!merged.ok && source === 'worktree' && (merged.code === 'worktreeMissing' || merged.code === 'wrongBranch')) {
      // Deleted by hand, or on another branch (a worker of any host that ran elsewhere): the branch
      // holds the work, so put the worktree back on it (never over uncommitted changes) and merge.
      const prepared = await this.git.prepare(work, this.baseBranch());
      if (prepared.ok) merged = await mergeOnce();
    }
    if (merged.ok) {
      const done = this.recordMerge(request);
      if (!done.ok) return done;
      const report: MergeReport = {
        taskId: task.id,
        title: task.title,
        branch: work.branch,
        base: this.baseBranch(),
        baseBefore: merged.value.baseBefore,
        baseAfter: merged.value.baseAfter,
      };
      return ok({ ...done.value, merged: report });
    }
    if (merged.code === 'mergeConflict') {
      const listed = merged.details?.['files'];
      const files = Array.isArray(listed) ? listed.filter((file): file is string => typeof file === 'string') : [];
      this.tx.internal(request.actor, (unit, s) => s.state.mergeConflict(unit, workerId, files));
    }
    return merged;
  }

  /** The merge's own transaction, once git has merged: only ever after the git work above. */
  private recordMerge(request: Request<'merge'>): Result<WorkerRow> {
    return this.tx.step(request, (unit, s) => s.state.merged(unit, request.args.worker));
  }

  /**
   * Cancel and reset let go of a worker's task. Its agent is stopped and whatever the worktree holds
   * uncommitted is snapshotted (ARCHITECTURE §5) before the worker can be given anything else: the
   * whole release runs in the worker's queue, ahead of any start a new assignment queues.
   */
  private release<T>(workerId: string | undefined, reason: string, transition: () => Result<T>): Promise<Result<T>> {
    if (!workerId) return Promise.resolve(transition());
    return this.serialized(workerId, async () => {
      const worker = this.tx.read((reader) => findWorker(reader, workerId));
      const work = worker ? this.workOf(worker) : undefined;
      const released = transition();
      if (released.ok && work) {
        await this.stopAgent(workerId);
        await this.git.snapshot(work, reason);
      }
      return released;
    });
  }

  /** The worker a cancel targets: the worker itself, or the one holding that task. */
  private holderOf(target: string): string | undefined {
    return this.tx.read((reader) => findWorker(reader, target)?.id ?? findWorkerIdHolding(reader, target));
  }

  /**
   * Another owner changed these workers (undefined: which is not known). Those of this host it
   * assigned (`assign` from another machine) are started here, where their agents run; those it
   * moved away from work (a cancel from another machine, a lease taken back, a liveness verdict)
   * have their agents stopped here, and a STALE one's work saved first.
   */
  noteExternal(workerIds?: readonly string[]): void {
    const agents = this.agents;
    const host = this.host;
    if (!agents || this.disposed || host === undefined) return;
    const workers = this.tx.read((reader) =>
      (workerIds ? workerIds.flatMap((id) => findWorker(reader, id) ?? []) : listWorkersOnHost(reader, host)).filter(
        (worker) => worker.host === host,
      ),
    );
    for (const worker of workers) {
      // A start queued twice finds the worker WORKING the second time and is refused: one launch.
      if (worker.state === WorkerState.Assigned) void this.serialized(worker.id, () => this.startWorker(worker.id));
      else if (stoppedStates.has(worker.state) && agents.signals(worker.id)?.alive) {
        const work = worker.state === WorkerState.Stale ? this.workOf(worker) : undefined;
        void this.serialized(worker.id, async () => {
          await this.stopAgent(worker.id);
          if (work) await this.git.snapshot(work, `agent stopped: ${worker.last_error ?? 'moved by another owner'}`);
        });
      }
    }
  }

  /**
   * Whether this owner launches the worker's agents: always with one owner; with several, when the
   * worker is this host's, or any host's and (with `handedHere`) not handed its task by another owner.
   */
  private runsHere(worker: WorkerRow, handedHere = false): boolean {
    if (this.host === undefined) return true;
    if (worker.host !== null) return worker.host === this.host;
    return !handedHere || worker.owner_id === null;
  }

  /** Reactions of a long-running owner with agents. */
  private react(event: EngineEvent): void {
    if (event.kind !== 'worker' || this.disposed) return;
    if (event.to === WorkerState.Assigned) {
      const worker = this.tx.read((reader) => findWorker(reader, event.id));
      if (worker && this.runsHere(worker)) void this.serialized(event.id, () => this.startWorker(event.id));
    }
    if (event.trigger === 'submit') void this.serialized(event.id, () => this.publish(event.id));
    if (
      event.to === WorkerState.Working &&
      (event.trigger === 'requestChanges' || event.trigger === 'mergeConflict' || event.trigger === 'resume')
    ) {
      void this.serialized(event.id, () => this.relaunch(event.id));
    }
    if (event.trigger === 'limitReached') {
      // Paused while its agent still retried: stop it; its session and worktree wait for the reset.
      const worker = this.tx.read((reader) => findWorker(reader, event.id));
      if (worker && this.runsHere(worker)) void this.serialized(event.id, () => this.stopAgent(event.id));
    }
    if (event.trigger === 'cancel' || event.trigger === 'dead' || event.trigger === 'heartbeatTimeout') {
      // A STALE worker still holds its task: what its agent left is saved before the retry.
      const worker = this.tx.read((reader) => findWorker(reader, event.id));
      // Another machine's worker: its agent and worktree are there, not here.
      if (worker && !this.runsHere(worker)) return;
      const work = worker?.state === WorkerState.Stale ? this.workOf(worker) : undefined;
      void this.serialized(event.id, async () => {
        await this.stopAgent(event.id);
        if (work) await this.git.snapshot(work, `agent stopped: ${worker?.last_error ?? event.trigger}`);
      });
    }
  }

  /**
   * After a submit, however it came (the crew's or the agent's own): the branch goes to the shared
   * remote for reviewers on other machines. A refused push leaves everything here as it was and
   * says why on the worker; the review goes on, and a merge from this machine still works.
   */
  private async publish(workerId: string): Promise<void> {
    const publish = this.git.publish?.bind(this.git);
    const worker = publish ? this.tx.read((reader) => findWorker(reader, workerId)) : undefined;
    const work = worker?.state === WorkerState.InReview ? this.workOf(worker) : undefined;
    if (!publish || !work) return;
    const pushed = await publish(work);
    if (pushed.ok) return;
    const reason = `push of ${work.branch} failed: ${pushed.message}`;
    this.settings.log?.(`crew: ${reason}`);
    this.tx.internal('crew', (unit) => {
      const current = findWorker(unit.tx, workerId);
      if (current?.task_id === work.taskId && current.attempt === work.attempt)
        setWorkerLastError(unit.tx, workerId, reason.slice(0, 10_000));
      return ok(undefined);
    });
  }

  private async relaunch(workerId: string): Promise<void> {
    const found = this.load(workerId);
    if (!found.ok || found.value.worker.state !== WorkerState.Working) return;
    const work = this.workOf(found.value.worker);
    if (!work) return;
    const prepared = await this.git.prepare(work, this.baseBranch());
    const note = found.value.worker.note ?? 'Continue the task.';
    if (prepared.ok) this.runner?.followUp(work, prepared.value.worktree, found.value.worker, found.value.task, note);
  }

  private async stopAgent(workerId: string): Promise<void> {
    const exit = await this.agents?.cancel(workerId);
    if (exit) this.settings.log?.(`crew: stopped the agent of ${workerId}: ${exit.reason}`);
  }

  private load(workerId: string): Result<{ worker: WorkerRow; task: TaskRow }> {
    return this.tx.read((reader) => {
      const worker = findWorker(reader, workerId);
      if (!worker) return notFound('worker', workerId);
      const task = worker.task_id ? findTask(reader, worker.task_id) : undefined;
      if (!task) return refused('noTask', `Worker '${workerId}' holds no task.`);
      return ok({ worker, task });
    });
  }

  private workOf(worker: WorkerRow): WorkRef | undefined {
    return worker.task_id && worker.branch
      ? { workerId: worker.id, taskId: worker.task_id, attempt: worker.attempt, branch: worker.branch }
      : undefined;
  }

  /** The task this worker held before the current one: its worktree may still hold that work. */
  private previousWork(workerId: string): { taskId: string; attempt: number } | undefined {
    const metadata = this.tx.read((reader) => findPreviousAssignMetadata(reader, workerId));
    const previous = metadata ? (JSON.parse(metadata) as { taskId?: string; attempt?: number }) : undefined;
    return previous?.taskId && previous.attempt ? { taskId: previous.taskId, attempt: previous.attempt } : undefined;
  }

  private baseBranch(): string {
    return this.tx.read((reader) => readMeta(reader, 'base_branch')) ?? 'main';
  }

  /** One operation at a time per worker, in order. */
  private serialized<T>(workerId: string, operation: () => Promise<T>): Promise<T> {
    return this.perWorker.queue(workerId, operation);
  }

  dispose(): void {
    this.disposed = true;
    this.subscription?.dispose();
  }
}

import type { Request } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import type { Engine } from './engine';
import type { Disposable } from './events';
import { AgentRunner, type AgentRunnerSettings } from './agentRunner';
import type { AgentPort, GitPort, MergeStrategy, WorkRef } from './ports';
import { type TaskRow, type WorkerRow, findTask, findWorker, readMeta } from './rows';
import type { EngineEvent } from './unit';

export interface CrewSettings extends AgentRunnerSettings {
  readonly mergeStrategy: MergeStrategy;
}

/** What a merge landed where, beside the worker row it returns (`foreman merge` prints it). */
export interface MergeReport {
  readonly taskId: string;
  readonly title: string;
  readonly branch: string;
  readonly base: string;
  /** The base's commit before and after the merge. */
  readonly baseBefore: string;
  readonly baseAfter: string;
}
/**
 * Where state meets git and agents (ARCHITECTURE §5, §6). `start` and `merge` do their git work
 * first and move state after; with an AgentPort (a long-running owner) it also launches agents on
 * assignment, relaunches them on review notes and merge conflicts, and turns their exits into
 * submits or failed attempts. Work is snapshotted before anything could lose it.
 */
export class Crew implements Disposable {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly subscription: Disposable | undefined;
  private readonly runner: AgentRunner | undefined;
  private disposed = false;

  constructor(
    private readonly engine: Engine,
    private readonly git: GitPort,
    private readonly agents: AgentPort | undefined,
    private readonly settings: CrewSettings,
  ) {
    this.subscription = agents ? engine.onDidCommit((events) => events.forEach((event) => this.react(event))) : undefined;
    this.runner = agents
      ? new AgentRunner(
          engine,
          git,
          agents,
          settings,
          (workerId, operation) => this.serialized(workerId, operation),
          () => this.disposed,
        )
      : undefined;
  }

  /** The async front door: `start` and `merge` involve git; everything else is the engine's. */
  async execute(request: Request): Promise<Result<unknown>> {
    switch (request.command) {
      case 'start':
        return this.serialized(request.args.worker, () => this.start(request.args.worker, request));
      case 'merge':
        return this.serialized(request.args.worker, () => this.merge(request.args.worker, request));
      case 'cancel':
        return this.release(request, this.holderOf(request.args.target), 'cancelled');
      case 'reset':
        return this.release(request, request.args.worker, 'reset');
      default:
        return this.engine.execute(request);
    }
  }

  /** After an owner restart: agents of WORKING workers are gone; save their work and retry. */
  async recoverOrphans(): Promise<void> {
    const workers = this.engine.read((reader) => reader.all<WorkerRow>(`SELECT * FROM workers WHERE state IN ('ASSIGNED', 'WORKING')`));
    for (const worker of workers) {
      if (worker.state === WorkerState.Assigned) {
        void this.serialized(worker.id, () => this.start(worker.id));
        continue;
      }
      if (this.agents?.signals(worker.id)?.alive) continue;
      await this.serialized(worker.id, async () => {
        const work = this.workOf(worker);
        if (work) await this.git.snapshot(work, 'owner restarted');
        this.engine.runInternal('monitor', (unit) => {
          const current = findWorker(unit.tx, worker.id);
          if (current?.state !== WorkerState.Working) return ok(undefined);
          const reason = 'owner restarted: its agent is not running';
          unit.tx.run('UPDATE workers SET last_error = ? WHERE id = ?', [reason, worker.id]);
          const stale = this.engine.state.fail(unit, worker.id, reason);
          return stale;
        });
      });
    }
  }

  private async start(workerId: string, request?: Request): Promise<Result<unknown>> {
    const found = this.load(workerId);
    if (!found.ok) return found;
    const { worker, task } = found.value;
    if (worker.state !== WorkerState.Assigned) {
      return refused('illegalTransition', `'${workerId}': A worker in ${worker.state} cannot start; only an ASSIGNED worker can.`, {
        from: worker.state,
        trigger: 'start',
      });
    }
    const work = this.workOf(worker)!;
    const base = this.baseBranch();
    const startPoint =
      task.previous_branch && task.previous_branch !== work.branch && (await this.git.branchExists(task.previous_branch))
        ? task.previous_branch
        : base;
    const prepared = await this.git.prepare(work, startPoint, this.previousWork(workerId));
    if (!prepared.ok) {
      this.engine.execute({
        command: 'fail',
        args: { worker: workerId, reason: `setup failed: ${prepared.message}`, attempt: work.attempt },
        actor: 'crew',
      });
      return prepared;
    }
    const started = this.engine.execute(request ?? { command: 'start', args: { worker: workerId }, actor: 'crew' });
    if (!started.ok) return started;
    if (this.runner) void this.serialized(workerId, () => this.runner!.startTask(work, prepared.value.worktree, worker, task));
    return ok({ ...(started.value as object), worktree: prepared.value.worktree });
  }

  private async merge(workerId: string, request: Request): Promise<Result<unknown>> {
    const found = this.load(workerId);
    if (!found.ok) return found;
    const { worker, task } = found.value;
    if (worker.state !== WorkerState.Approved) {
      return refused('illegalTransition', `'${workerId}': A worker in ${worker.state} cannot merge; only an APPROVED worker can.`, {
        from: worker.state,
        trigger: 'merge',
      });
    }
    const work = this.workOf(worker)!;
    // An agent that submitted by itself may still run (an interactive one in a terminal): it must
    // not edit the worktree while the merge rebases it. What it left is committed by the merge.
    await this.stopAgent(workerId);
    let merged = await this.git.merge(work, this.settings.mergeStrategy, this.settings.verify);
    if (!merged.ok && merged.code === 'worktreeMissing') {
      // Deleted by hand: the branch holds the work, so recreate the worktree from it and merge.
      const prepared = await this.git.prepare(work, this.baseBranch());
      if (prepared.ok) merged = await this.git.merge(work, this.settings.mergeStrategy, this.settings.verify);
    }
    if (merged.ok) {
      const done = this.engine.execute(request);
      if (!done.ok) return done;
      const report: MergeReport = {
        taskId: task.id,
        title: task.title,
        branch: work.branch,
        base: this.baseBranch(),
        baseBefore: merged.value.baseBefore,
        baseAfter: merged.value.baseAfter,
      };
      return ok({ ...(done.value as WorkerRow), merged: report });
    }
    if (merged.code === 'mergeConflict') {
      const files = Array.isArray(merged.details?.['files']) ? (merged.details['files'] as string[]) : [];
      this.engine.runInternal(request.actor, (unit) => this.engine.state.mergeConflict(unit, workerId, files));
    }
    return merged;
  }

  /**
   * Cancel and reset let go of a worker's task. Its agent is stopped and whatever the worktree holds
   * uncommitted is snapshotted (ARCHITECTURE §5) before the worker can be given anything else: the
   * whole release runs in the worker's queue, ahead of any start a new assignment queues.
   */
  private release(request: Request, workerId: string | undefined, reason: string): Promise<Result<unknown>> {
    if (!workerId) return Promise.resolve(this.engine.execute(request));
    return this.serialized(workerId, async () => {
      const worker = this.engine.read((reader) => findWorker(reader, workerId));
      const work = worker ? this.workOf(worker) : undefined;
      const released = this.engine.execute(request);
      if (released.ok && work) {
        await this.stopAgent(workerId);
        await this.git.snapshot(work, reason);
      }
      return released;
    });
  }

  /** The worker a cancel targets: the worker itself, or the one holding that task. */
  private holderOf(target: string): string | undefined {
    return this.engine.read(
      (reader) => findWorker(reader, target)?.id ?? reader.get<{ id: string }>('SELECT id FROM workers WHERE task_id = ?', [target])?.id,
    );
  }

  /** Reactions of a long-running owner with agents. */
  private react(event: EngineEvent): void {
    if (event.kind !== 'worker' || this.disposed) return;
    if (event.to === WorkerState.Assigned) void this.serialized(event.id, () => this.start(event.id));
    if (event.to === WorkerState.Working && (event.trigger === 'requestChanges' || event.trigger === 'mergeConflict')) {
      void this.serialized(event.id, () => this.relaunch(event.id));
    }
    if (event.trigger === 'cancel' || event.trigger === 'dead' || event.trigger === 'heartbeatTimeout') {
      // A STALE worker still holds its task: what its agent left is saved before the retry.
      const worker = this.engine.read((reader) => findWorker(reader, event.id));
      const work = worker?.state === WorkerState.Stale ? this.workOf(worker) : undefined;
      void this.serialized(event.id, async () => {
        await this.stopAgent(event.id);
        if (work) await this.git.snapshot(work, `agent stopped: ${worker?.last_error ?? event.trigger}`);
      });
    }
  }

  private async relaunch(workerId: string): Promise<void> {
    const found = this.load(workerId);
    if (!found.ok || found.value.worker.state !== WorkerState.Working) return;
    const work = this.workOf(found.value.worker)!;
    const prepared = await this.git.prepare(work, this.baseBranch());
    const note = found.value.worker.note ?? 'Continue the task.';
    if (prepared.ok) this.runner?.followUp(work, prepared.value.worktree, found.value.worker, found.value.task, note);
  }

  private async stopAgent(workerId: string): Promise<void> {
    const exit = await this.agents?.cancel(workerId);
    if (exit) this.settings.log?.(`crew: stopped the agent of ${workerId}: ${exit.reason}`);
  }

  private load(workerId: string): Result<{ worker: WorkerRow; task: TaskRow }> {
    return this.engine.read((reader) => {
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
    const row = this.engine.read((reader) =>
      reader.get<{ metadata: string | null }>(
        `SELECT metadata FROM transitions WHERE entity_type = 'worker' AND entity_id = ? AND trigger = 'assign' ORDER BY seq DESC LIMIT 1 OFFSET 1`,
        [workerId],
      ),
    );
    const previous = row?.metadata ? (JSON.parse(row.metadata) as { taskId?: string; attempt?: number }) : undefined;
    return previous?.taskId && previous.attempt ? { taskId: previous.taskId, attempt: previous.attempt } : undefined;
  }

  private baseBranch(): string {
    return this.engine.read((reader) => readMeta(reader, 'base_branch')) ?? 'main';
  }

  /** One operation at a time per worker, in order. */
  private serialized<T>(workerId: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(workerId) ?? Promise.resolve();
    const next = previous.then(operation, operation);
    this.queues.set(
      workerId,
      next.catch(() => undefined),
    );
    return next;
  }

  dispose(): void {
    this.disposed = true;
    this.subscription?.dispose();
  }
}

import type { Result } from '../core/result';
import { notFound, ok, refused } from '../core/result';
import type { WorkerState } from '../core/workerMachine';
import { SequencerByKey } from '../base/async';
import { DisposableBase } from '../base/lifetime';
import { AgentRunner, type AgentRunnerSettings } from './agentRunner';
import type { AgentPort, GitPort, MergeStrategy, WorkRef } from './ports';
import { findPreviousAssignMetadata } from './queries';
import { type TaskRow, type WorkerRow, findTask, findWorker, readMeta } from './rows';
import type { Transactor } from './transactor';

export interface CrewSettings extends AgentRunnerSettings {
  readonly mergeStrategy: MergeStrategy;
}

/**
 * What the crew's flows (crew.ts, crewStart.ts, crewMerge.ts, crewReactions.ts) share: the store,
 * git and agents, one queue per worker in which all of that worker's git and agent steps run in
 * order, and the readings every flow makes of a worker and its task. Once disposed, nothing new
 * is launched or reacted to (`isDisposed`).
 */
export class CrewWork extends DisposableBase {
  private readonly perWorker = new SequencerByKey<string>();
  /** Launches and follows agents; only with an AgentPort (a long-running owner). */
  readonly runner: AgentRunner | undefined;

  constructor(
    readonly tx: Transactor,
    readonly git: GitPort,
    readonly agents: AgentPort | undefined,
    readonly settings: CrewSettings,
    /** With several owners: this owner's machine; only its workers (and those of any host) are launched here. */
    readonly host?: string,
  ) {
    super();
    this.runner = agents
      ? new AgentRunner(
          tx,
          git,
          agents,
          settings,
          (workerId, operation) => this.serialized(workerId, operation),
          () => this.isDisposed,
        )
      : undefined;
  }

  /** One operation at a time per worker, in order. */
  serialized<T>(workerId: string, operation: () => Promise<T>): Promise<T> {
    return this.perWorker.queue(workerId, operation);
  }

  /**
   * Whether this owner launches the worker's agents: always with one owner; with several, when the
   * worker is this host's, or any host's and (with `handedHere`) not handed its task by another owner.
   */
  runsHere(worker: WorkerRow, handedHere = false): boolean {
    if (this.host === undefined) return true;
    if (worker.host !== null) return worker.host === this.host;
    return !handedHere || worker.owner_id === null;
  }

  async stopAgent(workerId: string): Promise<void> {
    const exit = await this.agents?.cancel(workerId);
    if (exit) this.settings.log?.(`crew: stopped the agent of ${workerId}: ${exit.reason}`);
  }

  load(workerId: string): Result<{ worker: WorkerRow; task: TaskRow }> {
    return this.tx.read((reader) => {
      const worker = findWorker(reader, workerId);
      if (!worker) return notFound('worker', workerId);
      const task = worker.task_id ? findTask(reader, worker.task_id) : undefined;
      if (!task) return refused('noTask', `Worker '${workerId}' holds no task.`);
      return ok({ worker, task });
    });
  }

  /**
   * The worker, its task and its work, for a flow that only a worker in `state` may take
   * (`trigger` names the flow in the refusal, as the transition table would).
   */
  loadIn(workerId: string, state: WorkerState, trigger: string): Result<{ worker: WorkerRow; task: TaskRow; work: WorkRef }> {
    const found = this.load(workerId);
    if (!found.ok) return found;
    const { worker, task } = found.value;
    if (worker.state !== state) {
      return refused('illegalTransition', `'${workerId}': A worker in ${worker.state} cannot ${trigger}; only an ${state} worker can.`, {
        from: worker.state,
        trigger,
      });
    }
    const work = this.workOf(worker);
    if (!work) return refused('noTask', `Worker '${workerId}' holds no task.`);
    return ok({ worker, task, work });
  }

  workOf(worker: WorkerRow): WorkRef | undefined {
    return worker.task_id && worker.branch
      ? { workerId: worker.id, taskId: worker.task_id, attempt: worker.attempt, branch: worker.branch }
      : undefined;
  }

  /** The task this worker held before the current one: its worktree may still hold that work. */
  previousWork(workerId: string): { taskId: string; attempt: number } | undefined {
    const metadata = this.tx.read((reader) => findPreviousAssignMetadata(reader, workerId));
    const previous = metadata ? (JSON.parse(metadata) as { taskId?: string; attempt?: number }) : undefined;
    return previous?.taskId && previous.attempt ? { taskId: previous.taskId, attempt: previous.attempt } : undefined;
  }

  baseBranch(): string {
    return this.tx.read((reader) => readMeta(reader, 'base_branch')) ?? 'main';
  }
}

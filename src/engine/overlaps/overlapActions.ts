import type { OverlapPair, TaskOverlap } from '../../core/overlaps';
import type { RequestOf, ResultOf } from '../../core/requests';
import { type Result, notFound, ok, refused } from '../../core/result';
import { TaskStatus } from '../../core/taskMachine';
import { WorkerState } from '../../core/workerMachine';
import type { CrewWork } from '../crewWork';
import type { Reader } from '../ports';
import { findWorkerHolding, insertOverlapChoice } from '../queries';
import { type TaskRow, findTask } from '../rows';
import { readAround } from './overlapStore';

/**
 * What a person can do about two overlapping tasks (docs/overlaps.md): run one after the other,
 * rebase one as soon as the other merges, or stop hearing about the pair. Each refuses in words
 * when a task is unknown or the two do not overlap. Git and agent steps run in the worker's queue,
 * as the crew's other flows do.
 */
export class OverlapActions {
  constructor(private readonly crew: CrewWork) {}

  /** `task` is stopped, what it left is committed on its branch (WIP), and it waits in the queue for `other`. */
  async runAfter(request: RequestOf<'overlap.run-after'>): Promise<Result<ResultOf<'overlap.run-after'>>> {
    const pair = this.overlapping(request.args);
    if (!pair.ok) return pair;
    const { task, other } = request.args;
    const holder = this.crew.tx.read((reader) => findWorkerHolding(reader, task));
    if (!holder) return refused('notRunning', `Task '${task}' is held by no worker; only a running task can be moved after another.`);
    return this.crew.serialized(holder.id, async () => {
      const work = this.crew.workOf(holder);
      const moved = this.crew.tx.step(request, (unit, s) => {
        const cancelled = s.state.cancel(unit, task);
        if (!cancelled.ok) return cancelled;
        const queued = s.state.retry(unit, task);
        if (!queued.ok) return queued;
        s.catalog.blockOn(unit, task, other);
        return ok(undefined);
      });
      if (!moved.ok) return moved;
      await this.crew.stopAgent(holder.id);
      // Committed on the task branch, which its next attempt starts from: nothing is lost or redone.
      const wip = work ? await this.crew.git.commitLeftovers(work, `WIP: ${pair.value.title} (stopped to run after ${other})`) : undefined;
      return ok({ task, other, blockedBy: other, wip: wip ?? null });
    });
  }

  /** Records the plan; when `other` merged already, rebases now. */
  async rebaseWhenMerged(request: RequestOf<'overlap.rebase-when-merged'>): Promise<Result<ResultOf<'overlap.rebase-when-merged'>>> {
    const { task, other } = request.args;
    const otherRow = this.crew.tx.read((reader) => findTask(reader, other));
    if (otherRow?.status !== TaskStatus.Done) {
      const pair = this.overlapping(request.args);
      if (!pair.ok) return pair;
      const planned = this.crew.tx.step(request, (unit) => {
        insertOverlapChoice(unit.tx, task, other, 'rebase-when-merged', unit.now);
        unit.events.push({ kind: 'rowsChanged', workers: holderOf(unit.tx, task), tasks: [task] });
        return ok({ task, other, plan: 'rebase-when-merged' as const, rebased: null });
      });
      return planned;
    }
    const rebased = await this.rebase(task, other);
    return rebased.ok ? ok({ task, other, plan: 'rebase-when-merged', rebased: rebased.value }) : rebased;
  }

  ignore(request: RequestOf<'overlap.ignore'>): Promise<Result<ResultOf<'overlap.ignore'>>> {
    const pair = this.overlapping(request.args);
    if (!pair.ok) return Promise.resolve(pair);
    const { task, other } = request.args;
    // Kept in both orders: each side reads its own rows.
    const ignored = this.crew.tx.step(request, (unit) => {
      insertOverlapChoice(unit.tx, task, other, 'ignored', unit.now);
      insertOverlapChoice(unit.tx, other, task, 'ignored', unit.now);
      unit.events.push({ kind: 'rowsChanged', workers: [...holderOf(unit.tx, task), ...holderOf(unit.tx, other)], tasks: [task, other] });
      return ok({ task, other, ignored: true as const });
    });
    return Promise.resolve(ignored);
  }

  /** `other` merged and `task` chose to wait for it (its plan taken by the tracker): rebased now, and its agent told. */
  onPlanDue(task: string, other: string): void {
    this.rebase(task, other).then(
      (rebased) => {
        if (!rebased.ok) this.crew.settings.log?.(`overlaps: ${rebased.message}`);
      },
      (error: unknown) => this.crew.settings.log?.(`overlaps: rebasing ${task} after ${other} failed: ${String(error)}`),
    );
  }

  /**
   * Commits what the agent left (so the worktree is clean), rebases the branch onto the base and
   * tells a running agent. A conflict aborts the rebase, leaving the worktree as it was; the agent
   * hears that too, and the merge will rebase as usual.
   */
  private async rebase(task: string, other: string): Promise<Result<string>> {
    const holder = this.crew.tx.read((reader) => findWorkerHolding(reader, task));
    const work = holder ? this.crew.workOf(holder) : undefined;
    const rebaseOnBase = this.crew.git.rebaseOnBase?.bind(this.crew.git);
    if (!holder || !work || !rebaseOnBase) {
      return refused(
        'notHeld',
        `Task '${task}' is held by no worker here: its next attempt starts on the branch and is rebased at its merge.`,
      );
    }
    return this.crew.serialized(holder.id, async () => {
      if (this.crew.isDisposed) return refused('closing', `Foreman is closing: task '${task}' is rebased at its merge instead.`);
      const taskRow = this.crew.tx.read((reader) => findTask(reader, task));
      await this.crew.git.commitLeftovers(work, `WIP: ${taskRow?.title ?? task} (before rebasing onto the merge of ${other})`);
      const rebased = await rebaseOnBase(work);
      // The owner closed while git ran: the store is gone, and the agent with it.
      if (this.crew.isDisposed) return refused('closing', `Foreman closed while rebasing task '${task}'; its worktree is as git left it.`);
      const base = this.crew.baseBranch();
      const words = rebased.ok
        ? `Task '${other}' was merged into ${base}, and your branch was rebased onto it (your uncommitted edits were committed first). Re-read the files you share with it before editing them again.`
        : `Task '${other}' was merged into ${base}. Rebasing your branch onto it conflicts (${rebased.message}); the worktree was left as it was. Avoid further changes to the shared files where you can.`;
      if (holder.state === WorkerState.Working) this.crew.agents?.tell?.(holder.id, words);
      this.crew.settings.log?.(`overlaps: ${words}`);
      return rebased.ok ? ok(rebased.value.head) : rebased;
    });
  }

  /** Both tasks exist, differ, and overlap now (whether or not the pair was ignored). */
  private overlapping({ task, other }: OverlapPair): Result<TaskOverlap & { title: string }> {
    if (task === other) return refused('samePair', `A task cannot overlap itself: name two different tasks ('${task}' twice).`);
    const rows = this.crew.tx.read((reader) => [findTask(reader, task), findTask(reader, other)] as const);
    const [mine, theirs]: readonly (TaskRow | undefined)[] = rows;
    if (!mine) return notFound('task', task);
    if (!theirs) return notFound('task', other);
    const overlap = this.crew.tx
      .read((reader) => readAround(reader, task))
      .index.overlapsOf(task, { includeIgnored: true })
      .find((found) => found.taskId === other);
    if (!overlap) {
      return refused(
        'noOverlap',
        `Tasks '${task}' and '${other}' do not overlap: they touch no common file while both run (\`foreman overlaps\` lists the pairs that do).`,
      );
    }
    return ok({ ...overlap, title: mine.title });
  }
}

/** The worker holding a task, as a list for a `rowsChanged` event. */
function holderOf(reader: Reader, taskId: string): string[] {
  const holder = findWorkerHolding(reader, taskId);
  return holder ? [holder.id] : [];
}

import { slugify } from '../core/ids';
import type { ChainStep } from '../core/requests';
import { type Result, invalid, notFound, ok, refused } from '../core/result';
import { PlanningPhase, TaskStatus } from '../core/taskMachine';
import { countChildren, findTask, listChildren, listSuccessorIds, markPlanningActive, markPlanningFinalized, unblockTask } from './queries';
import { type TaskRow, requireTask } from './rows';
import type { TaskCatalog } from './taskCatalog';
import { moveTask } from './transitions';
import type { Unit } from './unit';

export interface ChainView {
  readonly parent: TaskRow;
  readonly children: TaskRow[];
}

/**
 * Planning and chains (seed 001 §4): a parent collects Idle children while planning is Active;
 * finalizing queues the first and blocks each later one on its predecessor. A Done child unblocks
 * its successor; a Failed or Cancelled child never does (fail closed) and fails the parent.
 */
export class ChainCoordinator {
  constructor(private readonly catalog: TaskCatalog) {}

  /** `foreman chain add`: parent plus ordered children, finalized, in one transaction. */
  createChain(unit: Unit, name: string, steps: readonly ChainStep[]): Result<ChainView> {
    const slug = slugify(name);
    const parentId = slug && !findTask(unit.tx, slug) ? slug : this.catalog.freshId(unit);
    const parent = this.catalog.insert(unit, { id: parentId, title: name, prompt: '', maxAttempts: 1, autoDispatch: false });
    if (!parent.ok) return parent;
    const started = this.startPlanning(unit, parentId);
    if (!started.ok) return started;
    for (const step of steps) {
      const added = this.addChild(unit, parentId, step.title, step.prompt ?? '');
      if (!added.ok) return added;
    }
    return this.finalize(unit, parentId);
  }

  startPlanning(unit: Unit, parentId: string): Result<TaskRow> {
    const parent = findTask(unit.tx, parentId);
    if (!parent) return notFound('task', parentId);
    if (parent.parent_task_id) return refused('nestedChain', `Task '${parentId}' is itself part of a chain; chains do not nest.`);
    if (parent.planning_phase !== PlanningPhase.None) {
      return refused('illegalTransition', `Task '${parentId}' is already in planning phase ${parent.planning_phase}.`, {
        from: parent.planning_phase,
        to: PlanningPhase.Active,
      });
    }
    if (parent.status !== TaskStatus.Idle && parent.status !== TaskStatus.Queued) {
      return refused(
        'illegalTransition',
        `Task '${parentId}' is ${parent.status}; only an idle or queued task can become a chain parent.`,
        { from: parent.status },
      );
    }
    if (parent.status === TaskStatus.Queued) {
      const idle = moveTask(unit, parent, 'reset', { reason: 'planning started' });
      if (!idle.ok) return idle;
    }
    markPlanningActive(unit.tx, parentId);
    unit.events.push({ kind: 'rowsChanged', workers: [], tasks: [parentId] });
    return ok(requireTask(unit.tx, parentId));
  }

  addChild(unit: Unit, parentId: string, title: string, prompt: string): Result<TaskRow> {
    const parent = findTask(unit.tx, parentId);
    if (!parent) return notFound('task', parentId);
    if (parent.planning_phase !== PlanningPhase.Active) {
      return refused(
        'notPlanning',
        `Task '${parentId}' is not being planned (phase ${parent.planning_phase}); run \`foreman plan start ${parentId}\` first.`,
      );
    }
    const count = countChildren(unit.tx, parentId);
    let id = `${parentId}-${count + 1}`;
    if (id.length > 63 || findTask(unit.tx, id)) id = this.catalog.freshId(unit);
    return this.catalog.insert(unit, {
      id,
      title,
      prompt,
      parentId,
      maxAttempts: parent.max_attempts > 1 ? parent.max_attempts : 3,
      autoDispatch: true,
    });
  }

  finalize(unit: Unit, parentId: string): Result<ChainView> {
    const parent = findTask(unit.tx, parentId);
    if (!parent) return notFound('task', parentId);
    if (parent.planning_phase !== PlanningPhase.Active) {
      return refused('notPlanning', `Task '${parentId}' is not being planned (phase ${parent.planning_phase}); nothing to finalize.`);
    }
    const children = this.children(unit, parentId);
    if (children.length === 0)
      return invalid('emptyChain', `Task '${parentId}' has no planned tasks; add some with \`foreman plan add ${parentId} <title>\`.`);
    markPlanningFinalized(unit.tx, parentId);
    const running = moveTask(unit, { ...parent, planning_phase: PlanningPhase.Finalized }, 'run', {
      set: { started_at: unit.now },
      reason: 'chain finalized',
    });
    if (!running.ok) return running;
    let previous: TaskRow | undefined;
    for (const child of children) {
      if (previous) this.catalog.blockOn(unit, child.id, previous.id);
      const queued = moveTask(unit, child, 'enqueue', previous ? { reason: `blocked by ${previous.id}` } : {});
      if (!queued.ok) return queued;
      previous = child;
    }
    return ok({ parent: requireTask(unit.tx, parentId), children: this.children(unit, parentId) });
  }

  /** Reacts to a task reaching Done, Failed (for good) or Cancelled. */
  onTaskFinished(unit: Unit, taskId: string): Result<void> {
    const task = findTask(unit.tx, taskId);
    if (!task) return ok(undefined);
    if (task.status === TaskStatus.Done) {
      for (const successor of listSuccessorIds(unit.tx, taskId)) {
        unblockTask(unit.tx, successor);
        unit.events.push({ kind: 'unblocked', id: successor, after: taskId });
      }
    }
    return task.parent_task_id ? this.settleParent(unit, task.parent_task_id, task) : ok(undefined);
  }

  /** A retried child resumes a chain that its failure had stopped. */
  onTaskRetried(unit: Unit, taskId: string): Result<void> {
    const task = findTask(unit.tx, taskId);
    const parent = task?.parent_task_id ? findTask(unit.tx, task.parent_task_id) : undefined;
    if (!parent || (parent.status !== TaskStatus.Failed && parent.status !== TaskStatus.Cancelled)) return ok(undefined);
    const idle = moveTask(unit, parent, 'reset', { reason: `chain resumed by retrying '${taskId}'` });
    if (!idle.ok) return idle;
    const running = moveTask(unit, { ...parent, status: TaskStatus.Idle }, 'run', { reason: `chain resumed by retrying '${taskId}'` });
    return running.ok ? ok(undefined) : running;
  }

  children(unit: Pick<Unit, 'tx'>, parentId: string): TaskRow[] {
    return listChildren(unit.tx, parentId);
  }

  private settleParent(unit: Unit, parentId: string, child: TaskRow): Result<void> {
    const parent = findTask(unit.tx, parentId);
    if (!parent || parent.status !== TaskStatus.Running) return ok(undefined);
    if (child.status === TaskStatus.Failed || child.status === TaskStatus.Cancelled) {
      // Named as a person wrote it, with the id that commands take.
      const why = `chain stopped: "${child.title}" (${child.id}) ${child.status}`;
      const failed = moveTask(unit, parent, 'fail', { set: { finished_at: unit.now, last_error: why }, reason: why });
      return failed.ok ? ok(undefined) : failed;
    }
    const children = this.children(unit, parentId);
    if (!children.every((c) => c.status === TaskStatus.Done)) return ok(undefined);
    const done = moveTask(unit, parent, 'complete', { set: { finished_at: unit.now }, reason: 'every task of the chain is done' });
    return done.ok ? ok(undefined) : done;
  }
}

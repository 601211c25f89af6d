import { newTaskId } from '../core/ids';
import type { CommandArgs } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { blockTask, findTask, insertTask, nextSortOrder } from './queries';
import { type TaskRow, requireTask } from './rows';
import { moveTask } from './transitions';
import type { Unit } from './unit';

export interface NewTask {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  readonly parentId?: string;
  readonly maxAttempts: number;
  readonly autoDispatch: boolean;
  /** Its agent plans first and waits for a person's approval (task add --plan-first). */
  readonly planFirst?: boolean;
}

/** Creation of tasks: ids, order, and the first move into the queue. */
export class TaskCatalog {
  constructor(
    private readonly defaultMaxAttempts: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** A fresh id that is not taken yet. */
  freshId(unit: Unit): string {
    for (;;) {
      const id = newTaskId(this.random);
      if (!findTask(unit.tx, id)) return id;
    }
  }

  /** Inserts an Idle task at the end of the order. */
  insert(unit: Unit, task: NewTask): Result<TaskRow> {
    if (findTask(unit.tx, task.id)) return refused('exists', `A task '${task.id}' already exists; pick another id.`, { id: task.id });
    insertTask(unit.tx, {
      id: task.id,
      title: task.title,
      prompt: task.prompt,
      parentId: task.parentId ?? null,
      autoDispatch: task.autoDispatch,
      planFirst: task.planFirst ?? false,
      maxAttempts: task.maxAttempts,
      sortOrder: nextSortOrder(unit.tx),
      createdAt: unit.now,
    });
    unit.events.push({ kind: 'created', entity: 'task', id: task.id });
    return ok(requireTask(unit.tx, task.id));
  }

  /** `foreman task add`: queued unless manual; `--after` blocks it on a predecessor (fail closed). */
  add(unit: Unit, args: CommandArgs<'task.add'>): Result<TaskRow> {
    if (args.after && !findTask(unit.tx, args.after)) return notFound('task', args.after);
    const inserted = this.insert(unit, {
      id: args.id ?? this.freshId(unit),
      title: args.title,
      prompt: args.prompt,
      maxAttempts: args.maxAttempts ?? this.defaultMaxAttempts,
      autoDispatch: !args.manual,
      planFirst: args.planFirst,
    });
    if (!inserted.ok) return inserted;
    const task = inserted.value;
    const predecessor = args.after ? findTask(unit.tx, args.after) : undefined;
    if (predecessor && predecessor.status !== 'done') this.blockOn(unit, task.id, predecessor.id);
    if (args.manual) return ok(task);
    const queued = moveTask(unit, task, 'enqueue');
    return queued.ok ? ok(requireTask(unit.tx, task.id)) : queued;
  }

  blockOn(unit: Unit, taskId: string, predecessorId: string): void {
    blockTask(unit.tx, taskId, predecessorId);
  }
}

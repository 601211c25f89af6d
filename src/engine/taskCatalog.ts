import { newTaskId } from '../core/ids';
import type { CommandArgs } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { type TaskRow, findTask } from './rows';
import { moveTask } from './transitions';
import type { Unit } from './unit';

export interface NewTask {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  readonly parentId?: string;
  readonly maxAttempts: number;
  readonly autoDispatch: boolean;
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
    const order = unit.tx.get<{ next: number }>('SELECT COALESCE(MAX(sort_order), 0) + 1 AS next FROM tasks')!.next;
    unit.tx.run(
      `INSERT INTO tasks (id, title, prompt, status, parent_task_id, auto_dispatch, max_attempts, sort_order, created_at)
       VALUES (?, ?, ?, 'idle', ?, ?, ?, ?, ?)`,
      [task.id, task.title, task.prompt, task.parentId ?? null, task.autoDispatch ? 1 : 0, task.maxAttempts, order, unit.now],
    );
    unit.events.push({ kind: 'created', entity: 'task', id: task.id });
    return ok(findTask(unit.tx, task.id)!);
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
    });
    if (!inserted.ok) return inserted;
    const task = inserted.value;
    const predecessor = args.after ? findTask(unit.tx, args.after) : undefined;
    if (predecessor && predecessor.status !== 'done') this.blockOn(unit, task.id, predecessor.id);
    if (args.manual) return ok(task);
    const queued = moveTask(unit, task, 'enqueue');
    return queued.ok ? ok(findTask(unit.tx, task.id)!) : queued;
  }

  blockOn(unit: Unit, taskId: string, predecessorId: string): void {
    unit.tx.run('UPDATE tasks SET blocked_by_task_id = ?, version = version + 1 WHERE id = ?', [predecessorId, taskId]);
  }
}

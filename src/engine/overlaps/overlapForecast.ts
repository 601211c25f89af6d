import type { OverlapIndex } from '../../core/overlapIndex';
import type { TaskRow } from '../rows';

/** Files remembered per chain (its finished steps'), and hints per task, at most this many entries each. */
const maxRemembered = 1000;

/**
 * Which files a task that has not started is expected to touch (docs/overlaps.md): its `paths`
 * hint from `task add`, or what the finished steps of its chain touched. The dispatcher prefers a
 * task whose expected files no running task touched. Kept in memory by the owner: a hint lost with
 * a restart only makes the dispatcher fall back to queue order.
 */
export class OverlapForecast {
  private readonly hints = new Map<string, readonly string[]>();
  private readonly chains = new Map<string, Set<string>>();

  constructor(private readonly index: OverlapIndex) {}

  hint(taskId: string, paths: readonly string[]): void {
    if (this.hints.size >= maxRemembered) this.hints.delete(this.hints.keys().next().value ?? '');
    this.hints.set(
      taskId,
      paths.map((path) => path.replace(/\\/g, '/').replace(/^\.\//, '')),
    );
  }

  /** A step of a chain finished: the next steps will likely touch the same files. */
  rememberStep(parentId: string, files: readonly string[]): void {
    if (files.length === 0) return;
    let known = this.chains.get(parentId);
    if (!known) {
      if (this.chains.size >= maxRemembered) this.chains.delete(this.chains.keys().next().value ?? '');
      this.chains.set(parentId, (known = new Set()));
    }
    for (const file of files) known.add(file);
  }

  /** Whether the task's expected files overlap a running task's; false when nothing is expected. */
  collides(task: TaskRow): boolean {
    const hinted = this.hints.get(task.id) ?? [];
    const chained = task.parent_task_id ? this.chains.get(task.parent_task_id) : undefined;
    if (hinted.length === 0 && !chained) return false;
    return this.index.touchesAny(hinted, task.id) || (chained !== undefined && this.index.touchesAny([...chained], task.id));
  }

  /** Whether anything is expected of any task: without, the dispatcher keeps to queue order at no cost. */
  get isEmpty(): boolean {
    return this.hints.size === 0 && this.chains.size === 0;
  }
}

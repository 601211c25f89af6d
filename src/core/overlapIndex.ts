import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { OverlapPlan, TaskOverlap } from './overlaps';

/**
 * The files each running (or in-review) task touched, indexed by file, and the overlaps they make
 * (issue 33). Pure and in memory: the engine fills one from the store's rows for each computation
 * (engine/overlaps/overlapStore.ts: a status read, or one task's rows and its neighbours' for an
 * event), so the cost grows with that task's files and the tasks sharing them, not with the number
 * of running tasks.
 */

/** Changed lines of the base version of a file, both ends inclusive; a pure insertion after line n is [n, n]. */
export interface LineRange {
  readonly start: number;
  readonly end: number;
}

/** A file a task touched; `ranges` undefined when only its name is known (an agent's edit event, a binary file). */
export interface TouchedFile {
  readonly path: string;
  readonly ranges?: readonly LineRange[];
}

/** Who a task is, as its overlaps name it. */
export interface OverlapSubject {
  readonly taskId: string;
  readonly workerId: string | null;
  readonly title: string;
}

interface Entry extends OverlapSubject {
  readonly files: ReadonlyMap<string, readonly LineRange[] | undefined>;
}

/** At most this many shared files are named per overlap (the contract's bound). */
const maxNamedFiles = 50;

export function rangesIntersect(a: readonly LineRange[], b: readonly LineRange[]): boolean {
  return a.some((left) => b.some((right) => left.start <= right.end && right.start <= left.end));
}

/** `-U0` hunk headers (`@@ -12,3 +12,4 @@`) to the base lines they change. */
export function rangesOfDiff(diff: string): Map<string, LineRange[]> {
  const files = new Map<string, LineRange[]>();
  let current: LineRange[] | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      const target = line.slice(4);
      current = target === '/dev/null' ? undefined : [];
      if (current) files.set(target.startsWith('b/') ? target.slice(2) : target, current);
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (!hunk || !current) continue;
    const start = Number(hunk[1]);
    const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
    current.push(count === 0 ? { start, end: start } : { start, end: start + count - 1 });
  }
  return files;
}

/**
 * An agent's path to the repository-relative one, with `/` separators; undefined when it lies
 * outside the worktree (or is the worktree itself, or inside `.git`).
 */
export function repoRelative(worktree: string, path: string): string | undefined {
  const inside = relative(worktree, resolve(worktree, path));
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return undefined;
  const parts = inside.split(sep);
  return parts[0] === '.git' ? undefined : parts.join('/');
}

export function pairKey(task: string, other: string): string {
  return `${task}\u0000${other}`;
}

export class OverlapIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly byFile = new Map<string, Set<string>>();
  /** Pairs a person chose to ignore, both orders. */
  private readonly ignored = new Set<string>();
  /** `task` → `other` → the plan `task` follows. */
  private readonly plans = new Map<string, Map<string, OverlapPlan>>();

  /** Replaces what the task touched. Returns the tasks whose overlaps may have changed (itself included). */
  set(subject: OverlapSubject, files: readonly TouchedFile[]): string[] {
    const before = this.sharersOf(subject.taskId);
    this.unindex(subject.taskId);
    const map = new Map<string, readonly LineRange[] | undefined>();
    for (const file of files) map.set(file.path, file.ranges);
    this.entries.set(subject.taskId, { ...subject, files: map });
    for (const path of map.keys()) {
      let holders = this.byFile.get(path);
      if (!holders) this.byFile.set(path, (holders = new Set()));
      holders.add(subject.taskId);
    }
    return [...new Set([subject.taskId, ...before, ...this.sharersOf(subject.taskId)])];
  }

  /** Adds files to what the task touched (an edit event before the diff is read again). */
  add(subject: OverlapSubject, files: readonly TouchedFile[]): string[] {
    const known = this.entries.get(subject.taskId)?.files ?? new Map<string, readonly LineRange[] | undefined>();
    const merged = new Map(known);
    for (const file of files) if (!merged.has(file.path)) merged.set(file.path, file.ranges);
    if (merged.size === known.size && this.entries.has(subject.taskId)) return [];
    return this.set(
      subject,
      [...merged].map(([path, ranges]) => (ranges ? { path, ranges } : { path })),
    );
  }

  /** The task no longer runs: it overlaps nothing. Returns the tasks it overlapped. */
  remove(taskId: string): string[] {
    const before = this.sharersOf(taskId);
    this.unindex(taskId);
    this.entries.delete(taskId);
    return before;
  }

  ignore(task: string, other: string): void {
    this.ignored.add(pairKey(task, other));
    this.ignored.add(pairKey(other, task));
  }

  isIgnored(task: string, other: string): boolean {
    return this.ignored.has(pairKey(task, other));
  }

  setPlan(task: string, other: string, plan: OverlapPlan): void {
    let plans = this.plans.get(task);
    if (!plans) this.plans.set(task, (plans = new Map<string, OverlapPlan>()));
    plans.set(other, plan);
  }

  /** What the task overlaps now: the other tasks sharing a file, without the ignored pairs, by task id. */
  overlapsOf(taskId: string, options: { readonly includeIgnored?: boolean } = {}): TaskOverlap[] {
    const entry = this.entries.get(taskId);
    if (!entry) return [];
    const shared = new Map<string, string[]>();
    for (const path of entry.files.keys()) {
      for (const other of this.byFile.get(path) ?? []) {
        if (other === taskId || (!options.includeIgnored && this.isIgnored(taskId, other))) continue;
        let files = shared.get(other);
        if (!files) shared.set(other, (files = []));
        files.push(path);
      }
    }
    const overlaps: TaskOverlap[] = [];
    for (const [otherId, files] of [...shared].sort(([a], [b]) => a.localeCompare(b))) {
      const other = this.entries.get(otherId);
      if (!other) continue;
      files.sort();
      const hunks = files.some((path) => {
        const mine = entry.files.get(path);
        const theirs = other.files.get(path);
        return mine !== undefined && theirs !== undefined && rangesIntersect(mine, theirs);
      });
      overlaps.push({
        taskId: otherId,
        workerId: other.workerId,
        title: other.title,
        files: files.slice(0, maxNamedFiles),
        hunks,
        plan: this.plans.get(taskId)?.get(otherId) ?? null,
      });
    }
    return overlaps;
  }

  private sharersOf(taskId: string): string[] {
    const entry = this.entries.get(taskId);
    if (!entry) return [];
    const sharers = new Set<string>();
    for (const path of entry.files.keys()) for (const other of this.byFile.get(path) ?? []) if (other !== taskId) sharers.add(other);
    return [...sharers];
  }

  private unindex(taskId: string): void {
    for (const path of this.entries.get(taskId)?.files.keys() ?? []) {
      const holders = this.byFile.get(path);
      holders?.delete(taskId);
      if (holders?.size === 0) this.byFile.delete(path);
    }
  }
}

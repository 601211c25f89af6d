/**
 * No agent outlives its owner (issue 27, item 10). Agents run in process groups of their own, so a
 * killed owner (SIGKILL of `serve`, a closed window, a stopped `npm start`) takes none of them
 * down. Each launch therefore gets a small watchdog (ownerWatchMain.ts): a detached node process
 * whose stdin is a pipe from the owner. The kernel closes that pipe whenever the owner dies, however
 * it dies, so the watchdog learns of it without polling; it then stops the agent's group (SIGTERM,
 * SIGKILL after a grace), saves the worktree as a wip ref and writes what it did next to the
 * attempt's log, where the next owner reads it and requeues the task without an alarm.
 *
 * The owner speaks to the watchdog in lines: `release` (the agent exited while the owner watched:
 * nothing to do) and `stop` (a clean stop: do it now, the same way). A clean stop uses the same
 * path as a crash, so there is one way an owner's agents end with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { type Clock, systemClock } from '../../engine/ports';
import { attemptPaths } from './attemptLog';

/** What the watchdog is told at start (argv[2], JSON). */
export const watchOrdersSchema = z.object({
  workerId: z.string(),
  taskId: z.string(),
  attempt: z.number().int().positive(),
  /** The agent's pid, which leads its own process group (it is spawned detached). */
  pid: z.number().int().gt(1),
  worktree: z.string(),
  graceMs: z.number().int().nonnegative(),
  /** Where the watchdog writes its `WatchOutcome`. */
  outcomeFile: z.string(),
});
export type WatchOrders = z.infer<typeof watchOrdersSchema>;

/** What a watchdog did once its owner went away or stopped; read by the next owner. */
export const watchOutcomeSchema = z.object({
  workerId: z.string(),
  taskId: z.string(),
  attempt: z.number().int(),
  pid: z.number().int(),
  /** `ownerGone`: the pipe from the owner closed; `ownerStopping`: the owner asked (a clean stop). */
  cause: z.enum(['ownerGone', 'ownerStopping']),
  /** The last signal the group needed. */
  signal: z.enum(['SIGTERM', 'SIGKILL']),
  /** The wip ref holding the worktree's uncommitted work, when there was any. */
  wipRef: z.string().optional(),
  /** Why the snapshot failed, if it did (the worktree itself still holds the work). */
  snapshotError: z.string().optional(),
  stoppedAt: z.number(),
});
export type WatchOutcome = z.infer<typeof watchOutcomeSchema>;

/** The watchdog's record of an attempt sits with the attempt's other files. */
export function watchOutcomeFile(logDir: string, taskId: string, attempt: number): string {
  const paths = attemptPaths(logDir, taskId, attempt);
  return join(paths.runDir, `${paths.stem}.owner-gone.json`);
}

/** The watchdog's record of that attempt, if it wrote one (an unreadable one counts as none). */
export function readWatchOutcome(file: string): WatchOutcome | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = watchOutcomeSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** How long a clean stop waits for a watchdog beyond the agent's grace: the SIGKILL and the snapshot. */
const stopSlackMs = 15_000;

/** One watchdog, as its owner holds it. */
export class OwnerWatch {
  private readonly exited: Promise<void>;
  private released = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    private readonly graceMs: number,
    private readonly clock: Clock,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    // Neither the process nor the pipe keeps the owner running: an owner that is done may exit,
    // and its exit is what the watchdog is there to notice.
    child.unref();
    (child.stdin as { unref?: () => void } | null)?.unref?.();
  }

  /** Starts the watchdog of a launched agent; undefined (with a log line) when it could not start. */
  static start(orders: WatchOrders, log: (line: string) => void, clock: Clock = systemClock): OwnerWatch | undefined {
    // An outcome left by an earlier run of this attempt must not speak for this one.
    rmSync(orders.outcomeFile, { force: true });
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [...watchdogArgs(), JSON.stringify(orders)], {
        // Its own group and session: a Ctrl-C to the terminal's group, a hangup or a kill of the
        // owner's group (code-server's, under `npm start`) must not end it before it has done its work.
        detached: true,
        shell: false,
        windowsHide: true,
        stdio: ['pipe', 'ignore', 'ignore'],
        // Inside VS Code process.execPath is Electron; this makes it plain node (node ignores it).
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      });
    } catch (error) {
      // No watchdog script next to the bundle (an install that lacks owner-watch.js) and no tsx to
      // run the source: the agent runs all the same, tracked by its owner, and this is said.
      log(`watchdog of ${orders.workerId}'s agent could not start: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    child.on('error', (error) => log(`watchdog of ${orders.workerId}'s agent: ${error.message}`));
    // Writing to a watchdog that is gone is not the owner's failure.
    child.stdin?.on('error', () => undefined);
    if (child.pid === undefined) return undefined;
    return new OwnerWatch(child, child.pid, orders.graceMs, clock);
  }

  /** The agent exited while its owner watched: the watchdog has nothing to do and leaves. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.child.stdin?.end('release\n');
  }

  /** A clean stop: the watchdog stops the agent and saves its work now; resolves once it is done. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.released = true;
    this.child.stdin?.end('stop\n');
    // The sleep keeps the owner running until the watchdog is done (the child and its pipe do not).
    await this.clock.sleep(this.graceMs + stopSlackMs, this.exited);
  }

  /** Whether the watchdog still runs (it has not finished its work or left). */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

/**
 * The watchdog's argv after node: bundled, `owner-watch.js` next to the bundle; from source
 * (tests, tsx), the TypeScript entry through tsx by absolute URL, as the demo agent does.
 */
function watchdogArgs(): string[] {
  const bundled = join(__dirname, 'owner-watch.js');
  if (existsSync(bundled)) return [bundled];
  const tsxLoader = pathToFileURL(createRequire(__filename).resolve('tsx')).href;
  return ['--import', tsxLoader, join(__dirname, 'ownerWatchMain.ts')];
}

/** The watchdogs of one supervisor's agents, by worker. */
export class OwnerWatches {
  private readonly byWorker = new Map<string, OwnerWatch>();

  constructor(
    /** The supervisor's log folder: outcomes sit with each attempt's files. */
    private readonly logDir: string,
    private readonly log: (line: string) => void,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Watches a just-launched agent until `child` exits; a watchdog that cannot start is logged, not fatal. */
  watch(orders: Omit<WatchOrders, 'outcomeFile'>, child: ChildProcess): void {
    const outcomeFile = watchOutcomeFile(this.logDir, orders.taskId, orders.attempt);
    const watch = OwnerWatch.start({ ...orders, outcomeFile }, this.log, this.clock);
    if (!watch) {
      this.log(`no watchdog for ${orders.workerId}'s agent (pid ${orders.pid}): it would outlive a killed owner`);
      return;
    }
    this.byWorker.set(orders.workerId, watch);
    child.once('exit', () => {
      watch.release();
      if (this.byWorker.get(orders.workerId) === watch) this.byWorker.delete(orders.workerId);
    });
  }

  /** A clean stop of the worker's agent by its watchdog (stopped, work saved, outcome written). */
  async stop(workerId: string): Promise<void> {
    const watch = this.byWorker.get(workerId);
    if (watch?.running) await watch.stop();
  }

  /** The pid of the worker's watchdog while it watches. */
  pidOf(workerId: string): number | undefined {
    return this.byWorker.get(workerId)?.pid;
  }

  /** What the watchdog of that attempt did, if its owner went away or stopped while the agent ran. */
  outcomeOf(taskId: string, attempt: number): WatchOutcome | undefined {
    return readWatchOutcome(watchOutcomeFile(this.logDir, taskId, attempt));
  }

  /** Forgets an outcome once the next owner has acted on it, so a later run of the attempt is not taken for it. */
  forget(taskId: string, attempt: number): void {
    rmSync(watchOutcomeFile(this.logDir, taskId, attempt), { force: true });
  }
}

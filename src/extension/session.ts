import type { CommandName, RequestOf, ResultOf } from '../core/requests';
import type { Result } from '../core/result';
import type { Event } from '../base/lifetime';
import type { StatusSnapshot } from '../engine/statusView';
import type { StatusDelta } from './statusModel';

/**
 * One workspace folder's Foreman as the UI sees it: a snapshot to draw, a change event, and a
 * way to send requests. The owner window runs the engine in-process; a second window is a
 * read-only client that routes its requests to the owner's endpoint.
 */
export interface ForemanSession {
  readonly root: string;
  readonly name: string;
  /** Why this window does not own the engine, when it does not ("owned by foreman serve, pid 4121"). */
  readonly ownerNote: string | undefined;
  /** Agents and merges need a trusted workspace (ARCHITECTURE §9). */
  readonly restricted: boolean;
  /** The state as last read; the same object until something changes. */
  snapshot(): StatusSnapshot;
  /** Something changed (a commit, a read): `takeChanges` says what. */
  readonly onDidChange: Event<void>;
  /** What changed since the last call (for the one consumer that redraws the views: the registry). */
  takeChanges(): StatusDelta;
  /** Reads the workers again (their liveness moves with the clock, no commit says so). */
  recheckWorkers(): void;
  /** Every request, with its command's typed result. */
  execute<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>>;
  /** Reads the state again (after something outside the engine's events changed it). */
  refresh(): void;
  worktreePath(workerId: string): string;
  /** The agent log of one task attempt. */
  logFile(taskId: string, attempt: number): string;
  /** Files that differ between the base and a branch. */
  changedFiles(branch: string): Promise<string[]>;
  /** A file's text at a ref (empty when it does not exist there). */
  fileAt(ref: string, file: string): Promise<string>;
  /** Releases everything (for the owner: the endpoint, then the lock) and resolves when done. */
  close(): Promise<void>;
  dispose(): void;
}

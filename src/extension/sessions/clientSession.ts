import * as fs from 'node:fs';
import type { CommandName, RequestOf, ResultOf } from '../../core/requests';
import type { Result } from '../../core/result';
import { Emitter } from '../../base/lifetime';
import { systemClock } from '../../engine/ports';
import type { StatusSnapshot } from '../../engine/statusView';
import { type WorkspaceClient, connectClient } from '../../host';
import type { ForemanSession } from '../session';
import { grantedElsewhereUntil } from './handover';
import { type StatusDelta, StatusModel, mergeDeltas, noChange } from '../statusModel';

/**
 * Another process owns the workspace (a second window, or `foreman serve`): this window shows the
 * state read-only and routes its requests to the owner's endpoint. It learns of changes by watching
 * the owner's journal, which grows with every commit, instead of polling. When the owner goes away
 * (its lock is released, or its process is gone when a request finds no endpoint), it calls
 * `onOwnerGone` once, so the window can take over ownership.
 */
export class ClientSession implements ForemanSession {
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  readonly restricted = false;
  /**
   * The state as the views show it. A client hears of commits from the journal's growth, not which
   * rows they touched, so it reads everything and the model tells the views which rows differ.
   */
  private readonly model = new StatusModel();
  private unreported: StatusDelta = noChange;
  private readonly watcher: fs.FSWatcher | undefined;
  /** The owner's endpoint for requests, and git read here (src/host/client.ts). */
  private readonly workspace: WorkspaceClient;
  private pending = false;
  /** The journal grew while a read was out: read again when it is back. */
  private readAgain = false;
  private ownerCheck: { dispose(): void } | undefined;
  private ownerGone = false;

  constructor(
    readonly root: string,
    readonly name: string,
    readonly ownerNote: string,
    private readonly worktreeRoot: string | undefined,
    private readonly onOwnerGone: () => void = () => undefined,
    /**
     * A window that has just handed over waits this long before it may take the workspace back,
     * so it never races the window it handed over to for the lock it released.
     */
    private readonly yieldUntil = 0,
  ) {
    this.workspace = connectClient(root, {
      baseBranch: () => this.model.snapshot().baseBranch ?? undefined,
      ...(worktreeRoot ? { worktreeRoot } : {}),
    });
    const dir = this.workspace.foremanDir;
    try {
      this.watcher = fs.watch(dir, (_event, file) => {
        const name = file?.toString();
        if (name && /^foreman\.(journal|db)$/.test(name)) this.refresh();
        if (name === 'owner.lock') this.checkOwner();
      });
    } catch {
      this.watcher = undefined;
    }
    this.refresh();
  }

  snapshot(): StatusSnapshot {
    return this.model.snapshot();
  }

  takeChanges(): StatusDelta {
    const changes = this.unreported;
    this.unreported = noChange;
    return changes;
  }

  /** Only the workers' rows, through the owner (liveness moves with the clock). */
  recheckWorkers(): void {
    const ids = { workers: this.model.workerIds(), tasks: [] as string[] };
    void this.execute({ command: 'status', args: { ids }, actor: 'vscode' }).then((result) => {
      if (!result.ok) return;
      this.unreported = mergeDeltas(this.unreported, this.model.update(result.value, ids));
      this.changeEmitter.fire();
    });
  }

  async execute<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>> {
    const result = await this.workspace.execute(request);
    if (!result.ok && result.code === 'ownerUnreachable') this.checkOwner();
    return result;
  }

  /**
   * Asks the owner for a fresh snapshot; bursts of journal writes coalesce into one request. A write
   * while a request is out may not be in its answer (issue 31: a merge's last commit was, and the
   * views said APPROVED until the next change): it asks once more when the answer is in.
   */
  refresh(): void {
    if (this.pending) {
      this.readAgain = true;
      return;
    }
    this.pending = true;
    this.readAgain = false;
    systemClock.setTimeout(() => {
      void this.execute({ command: 'status', args: {}, actor: 'vscode' }).then((result) => {
        this.pending = false;
        if (result.ok) {
          this.unreported = mergeDeltas(this.unreported, this.model.replace(result.value));
          this.changeEmitter.fire();
        }
        if (this.readAgain && !this.ownerGone) this.refresh();
      });
    }, 150);
  }

  /** Looks whether the owner is still there (after it granted a handover, say), and takes over if not. */
  ownerMayBeGone(): void {
    this.checkOwner();
  }

  /** Whether the owner is still there; the lock is rewritten in place, so look again a moment later. */
  private checkOwner(): void {
    if (this.ownerGone || this.ownerCheck) return;
    this.ownerCheck = systemClock.setTimeout(
      () => {
        this.ownerCheck = undefined;
        if (this.ownerGone || this.workspace.owner()) return;
        if (Date.now() < this.leaveLockUntil()) {
          this.checkOwner();
          return;
        }
        this.ownerGone = true;
        this.onOwnerGone();
      },
      Math.max(300, this.leaveLockUntil() - Date.now()),
    );
  }

  /** This window's own yield after handing over, or a handover granted to another window. */
  private leaveLockUntil(): number {
    return Math.max(this.yieldUntil, grantedElsewhereUntil(this.workspace.foremanDir));
  }

  worktreePath(workerId: string): string {
    return this.workspace.git.worktreePath(workerId);
  }

  logFile(taskId: string, attempt: number): string {
    return this.workspace.logFile(taskId, attempt);
  }

  changedFiles(branch: string): Promise<string[]> {
    return this.workspace.git.changedFiles(branch);
  }

  fileAt(ref: string, file: string): Promise<string> {
    return this.workspace.git.fileAt(ref, file);
  }

  close(): Promise<void> {
    this.watcher?.close();
    this.workspace.dispose();
    this.ownerCheck?.dispose();
    this.ownerGone = true;
    this.changeEmitter.dispose();
    return Promise.resolve();
  }

  dispose(): void {
    void this.close();
  }
}

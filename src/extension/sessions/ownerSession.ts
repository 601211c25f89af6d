import type { CommandName, RequestOf, ResultOf } from '../../core/requests';
import { type Result, refused } from '../../core/result';
import { type Disposable, Emitter } from '../../base/lifetime';
import type { StatusSnapshot } from '../../engine/statusView';
import type { EngineEvent } from '../../engine/unit';
import { type WorkspaceOwner, oneShotPatienceMs, openOwner, startOwnerEndpoint } from '../../host';
import type { CrewSettingsFile, EngineSettings } from '../../engine/settings';
import type { ForemanSession } from '../session';
import { type StatusDelta, StatusModel, addPending, mergeDeltas, noChange, touchedBy } from '../statusModel';
import { type HandoverDecision, HandoverListener, type HandoverRequest } from './handover';
import type { EndpointServer, StoreConfig, TerminalHost, TokenSource } from '../../host/infraParts';
import { storeFailure } from '../../host/infraParts';

/** Workspace Trust (ARCHITECTURE §9): in Restricted Mode no merge runs. */
const restrictedMerge = refused(
  'restricted',
  'This workspace is in Restricted Mode: Foreman runs no merge and launches no agent until you trust it.',
);

export interface OwnerSessionOptions {
  readonly root: string;
  readonly name: string;
  readonly trusted: boolean;
  readonly settings: { engine: EngineSettings; crew: CrewSettingsFile };
  /** The GitHub token of a `pull-request` workspace (forgeCredentials.ts). */
  readonly forgeToken?: TokenSource;
  readonly log: (line: string) => void;
  /** Agent profiles, read at each launch (`foreman.agents`). */
  readonly agentProfiles?: () => Readonly<Record<string, unknown>>;
  /** Where agent profiles with `mode: "terminal"` run. */
  readonly terminalHost?: TerminalHost;
  /** Answers another window that asks to take over; after a grant, `onHandedOver` lets go. */
  readonly handover?: {
    readonly decide: (request: HandoverRequest) => Promise<HandoverDecision>;
    readonly onHandedOver: (to: HandoverRequest) => void;
  };
  /** Hears when writes stop being saved (a full disk) and when they are saved again. */
  readonly onSavingChange?: (problem: string | undefined) => void;
  /** Hears, once, that the store stopped taking writes (a failed fsync): the window reopens it from disk. */
  readonly onStoreBroken?: (reason: string) => void;
  /** The `foreman.store` setting, when set: opened instead of the store `.foreman/store.json` names. */
  readonly store?: StoreConfig;
}

/**
 * This window owns the workspace (ARCHITECTURE §2): the engine runs in the extension host, the
 * endpoint serves the CLI and other windows, and, in a trusted workspace, agents are launched.
 */
export class OwnerSession implements ForemanSession {
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly eventEmitter = new Emitter<readonly EngineEvent[]>();
  /** The engine's events, for notifications. */
  readonly onDidCommit = this.eventEmitter.event;
  private readonly model = new StatusModel();
  /** Rows commits touched since the model last read them; `all` until the first full read. */
  private pending: { workers: Set<string>; tasks: Set<string> } | 'all' = 'all';
  private unreported: StatusDelta = noChange;
  private readonly commits: Disposable;
  private readonly external: Disposable;
  readonly ownerNote = undefined;

  private constructor(
    readonly root: string,
    readonly name: string,
    readonly restricted: boolean,
    private readonly owner: WorkspaceOwner,
    private readonly endpoint: EndpointServer,
    private readonly handover: HandoverListener | undefined,
  ) {
    this.commits = owner.engine.onDidCommit((events) => {
      // Only the ids here: the rows are read when someone looks (a burst of commits, one read).
      this.pending = addPending(this.pending, touchedBy(events));
      this.eventEmitter.fire(events);
      this.changeEmitter.fire();
    });
    // Another owner's commits on a shared store: the rows it named, or everything.
    this.external = owner.engine.onDidChangeExternally((changed) => {
      this.pending = addPending(this.pending, changed);
      this.changeEmitter.fire();
    });
  }

  /** Becomes the owner, or returns the refusal (`ownedByOther` when another process owns it). */
  static async open(options: OwnerSessionOptions): Promise<Result<OwnerSession>> {
    const opened = await openOwner(options.root, {
      role: 'vscode',
      log: options.log,
      lockPatienceMs: oneShotPatienceMs,
      launchAgents: options.trusted,
      settings: options.settings,
      ...(options.terminalHost ? { terminalHost: options.terminalHost } : {}),
      ...(options.forgeToken ? { forgeToken: options.forgeToken } : {}),
      ...(options.agentProfiles ? { agentProfiles: options.agentProfiles } : {}),
      ...(options.onSavingChange ? { onSavingChange: options.onSavingChange } : {}),
      ...(options.onStoreBroken ? { onStoreBroken: options.onStoreBroken } : {}),
      ...(options.store ? { store: options.store } : {}),
    });
    if (!opened.ok) return opened;
    const owner = opened.value;
    const restricted = !options.trusted;
    try {
      // Group commit: an answer leaves once saved, and requests taken meanwhile share one fsync.
      const endpoint = await startOwnerEndpoint(owner, {
        log: options.log,
        screen: (request) => (restricted && request.command === 'merge' ? restrictedMerge : undefined),
      });
      const handover =
        options.handover && new HandoverListener(owner.foremanDir, options.handover.decide, options.handover.onHandedOver, options.log);
      const session = new OwnerSession(options.root, options.name, restricted, owner, endpoint, handover);
      // Recovery and the first dispatch run after activation has returned: the window never waits on them.
      setImmediate(() => void owner.start().catch((error: unknown) => options.log(`start failed: ${String(error)}`)));
      return { ok: true, value: session };
    } catch (error) {
      owner.close();
      throw error;
    }
  }

  snapshot(): StatusSnapshot {
    this.read();
    return this.model.snapshot();
  }

  takeChanges(): StatusDelta {
    this.read();
    const changes = this.unreported;
    this.unreported = noChange;
    return changes;
  }

  recheckWorkers(): void {
    if (this.pending === 'all') return;
    for (const id of this.model.workerIds()) this.pending.workers.add(id);
    this.changeEmitter.fire();
  }

  /** Brings the model up to date: everything at first and after `refresh`, else the rows commits touched. */
  private read(): void {
    const pending = this.pending;
    if (pending !== 'all' && pending.workers.size === 0 && pending.tasks.size === 0) return;
    this.pending = { workers: new Set(), tasks: new Set() };
    const ids = pending === 'all' ? undefined : this.model.rowsToRead(pending);
    const result = this.owner.engine.query({
      command: 'status',
      args: ids ? { ids: { workers: [...ids.workers], tasks: [...ids.tasks] } } : {},
      actor: 'vscode',
    });
    if (!result.ok) {
      this.pending = pending;
      throw new Error(result.message);
    }
    const delta = ids ? this.model.update(result.value, ids) : this.model.replace(result.value);
    this.unreported = mergeDeltas(this.unreported, delta);
  }

  async execute<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>> {
    if (this.restricted && request.command === 'merge') return restrictedMerge;
    try {
      return await this.owner.execute(request);
    } catch (error) {
      // A full disk or a damaged store is an answer with what to do, not an unexpected error.
      const expected = storeFailure(error);
      if (expected) return expected;
      throw error;
    }
  }

  refresh(): void {
    this.pending = 'all';
    this.changeEmitter.fire();
  }

  worktreePath(workerId: string): string {
    return this.owner.git.worktreePath(workerId);
  }

  logFile(taskId: string, attempt: number): string {
    return this.owner.logFile(taskId, attempt);
  }

  changedFiles(branch: string): Promise<string[]> {
    return this.owner.git.changedFiles(branch);
  }

  fileAt(ref: string, file: string): Promise<string> {
    return this.owner.git.fileAt(ref, file);
  }

  async close(): Promise<void> {
    this.commits.dispose();
    this.external.dispose();
    this.handover?.dispose();
    this.changeEmitter.dispose();
    this.eventEmitter.dispose();
    try {
      await this.endpoint.close();
    } finally {
      this.owner.close();
    }
  }

  dispose(): void {
    void this.close();
  }
}

import { type CommandName, type ReadCommand, type RequestOf, type ResultOf } from '../core/requests';
import { type Result, ok, refused } from '../core/result';
import { Crew } from './crew';
import type { CrewSettings } from './crewWork';
import { EngineBackground } from './engineBackground';
import { createServices } from './engineServices';
import { type ForgePort, type HandoffSettings, defaultHandoff } from './forge';
import { PullRequests } from './pullRequests';
import { type Disposable, DisposableStore, Emitter, type Event } from '../base/lifetime';
import { type LeaseClock, OwnerLease, engineLeaseClock } from './ownerLease';
import { identityFirst } from './storeIdentity';
import { type TxCommand, createHandlers } from './handlers';
import {
  type AgentPort,
  type ArchiveSink,
  type BlobStore,
  type ChangedRows,
  type Clock,
  type ExportSink,
  type GitPort,
  type OwnerIdentity,
  type Store,
  systemClock,
} from './ports';
import { ExternalChanges } from './externalChanges';
import { lastTransitionSeq, listBeatSignsOffHost, listTransitionSubjects } from './queries';
import type { EngineSettings } from './settings';
import { Transactor } from './transactor';
import { type SerializedValue, readStatusInPages } from './statusPages';
import { OverlapActions } from './overlaps/overlapActions';
import { OverlapTracker, defaultOverlapSettings } from './overlaps/overlapTracker';
import type { WorkerRow } from './rows';
import type { EngineEvent } from './unit';

export interface EngineDeps {
  readonly store: Store;
  readonly settings: EngineSettings;
  readonly blobs: BlobStore;
  readonly exports: ExportSink;
  /** Where retention writes its segments (`.foreman/archive/`). */
  readonly archive: ArchiveSink;
  /** Worktrees, branches and merges: `start` and `merge` do their git work through it. */
  readonly git: GitPort;
  /** Launched agents (a long-running, trusted owner); without it nothing is launched. */
  readonly agents?: AgentPort;
  readonly crew: CrewSettings;
  readonly clock?: Clock;
  readonly random?: () => number;
  /**
   * With several owners on one store (PostgreSQL, issue 14): who this engine is. It then hands work
   * only to workers of its host (or of any host), launches only their agents, keeps a lease in
   * `owners` and takes back the work of owners whose lease ran out. Without it (sql.js, one owner):
   * none of that, as before.
   */
  readonly owner?: OwnerIdentity;
  /**
   * The clock owners' leases are kept by (ownerLease.ts): the shared server's on PostgreSQL, so that
   * machines whose clocks differ agree on when a lease ran out. Default: `clock`.
   */
  readonly leaseClock?: LeaseClock;
  /** How approved work leaves (docs/handoff.md); default: the local merge queue. */
  readonly handoff?: HandoffSettings;
  /** The forge pull requests are opened on, with `handoff.mode: 'pull-request'`. */
  readonly forge?: ForgePort;
  /** Where the hand-off says what it could not do (a forge that stays away). */
  readonly log?: (line: string) => void;
}

/** `execute` saving later; with `between`, `status --all` is read in pages (a `SerializedValue`) with `between` run between them. */
export type SavingLater = { readonly saving: 'later'; readonly between?: () => Promise<void> };

/** How each command is carried out: its transaction, or a flow of git and agent steps around it. */
type Routes = { readonly [C in CommandName]: (request: RequestOf<C>) => Promise<Result<ResultOf<C>>> };

/**
 * The engine's one front door: every request, from the CLI, the endpoint or the VS Code host,
 * goes through `execute` and gets its command's typed result. A request is one guarded
 * transaction; `start`, `merge`, `cancel` and `reset` are flows whose git and agent steps run
 * around their transactions. Events fire only after a commit. The same engine runs in the
 * VS Code host, `foreman serve` and a one-shot CLI call; a long-running owner also starts its
 * background work (engineBackground.ts).
 */
export class Engine implements Disposable {
  /** Fires after every commit with the events it produced. */
  readonly onDidCommit: Event<readonly EngineEvent[]>;

  private readonly external: ExternalChanges;
  /**
   * Another owner of the store committed a change (`noteExternalChange`): these rows, or (undefined)
   * rows not known, to be read again by views. While someone listens, the other machines' workers'
   * heartbeats are read on a timer and announced here too (they send no notification).
   */
  readonly onDidChangeExternally: Event<ChangedRows | undefined>;

  private readonly _onDidFailInBackground = new Emitter<unknown>();
  /**
   * Fires when engine-internal work (the dispatcher, the liveness monitor) threw, e.g. because a
   * full disk kept its write from being saved. That work is tried again later by itself.
   */
  readonly onDidFailInBackground: Event<unknown> = this._onDidFailInBackground.event;

  private readonly tx: Transactor;
  private readonly crew: Crew;
  /** The files running tasks touched and their overlaps (docs/overlaps.md). */
  readonly overlaps: OverlapTracker;
  private readonly background: EngineBackground;
  private readonly routes: Routes;
  /** The commands that are one transaction each (their route is `tx` below). */
  private readonly plainRoutes: ReadonlySet<CommandName>;
  private readonly disposables = new DisposableStore();
  private isDisposed = false;

  constructor(private readonly deps: EngineDeps) {
    const { settings } = deps;
    const clock = deps.clock ?? systemClock;
    const services = createServices(deps, clock, () => this.background.leaseHolder());
    this.tx = this.disposables.add(new Transactor(deps.store, settings, clock, services, createHandlers(services)));
    this.onDidCommit = this.tx.onDidCommit;
    const host = deps.owner?.host;
    this.external = new ExternalChanges(
      host === undefined
        ? undefined
        : {
            beats: () => this.tx.read((reader) => listBeatSignsOffHost(reader, host)),
            lastSeq: () => this.tx.read((reader) => lastTransitionSeq(reader)),
            transitionsAfter: (seq, limit) => this.tx.read((reader) => listTransitionSubjects(reader, seq, limit)),
          },
      clock,
    );
    this.onDidChangeExternally = this.external.event;
    this.crew = this.disposables.add(new Crew(this.tx, deps.git, deps.agents, deps.crew, deps.owner?.host));
    const overlapSettings = { ...defaultOverlapSettings, ...(deps.log ? { log: deps.log } : {}) };
    const overlapActions = new OverlapActions(this.crew.shared);
    const overlapHooks = {
      runsHere: (worker: WorkerRow) => this.crew.shared.runsHere(worker),
      onPlanDue: (taskId: string, otherId: string) => overlapActions.onPlanDue(taskId, otherId),
    };
    this.overlaps = this.disposables.add(new OverlapTracker(this.tx, deps.git, clock, overlapHooks, overlapSettings));
    const lease = deps.owner ? new OwnerLease(deps.owner, settings.ownerLeaseMs, deps.leaseClock ?? engineLeaseClock(clock)) : undefined;
    const tx = <C extends TxCommand>(request: RequestOf<C>) => Promise.resolve(this.tx.apply(request));
    const withIdentity = identityFirst(this.tx);
    const handoff = deps.handoff ?? defaultHandoff;
    const pullRequests =
      handoff.mode === 'pull-request' && deps.forge
        ? this.disposables.add(new PullRequests(this.tx, deps.git, deps.forge, handoff, clock, deps.log))
        : undefined;
    const noPullRequests = () =>
      Promise.resolve(
        refused('noPullRequests', "This workspace merges locally (`handoff` is 'local-merge'); there are no pull requests to read."),
      );
    this.routes = {
      'worker.add': tx,
      'worker.list': tx,
      'task.add': tx,
      'chain.add': tx,
      'plan.start': tx,
      'plan.add': tx,
      'plan.finalize': tx,
      assign: tx,
      claim: tx,
      dispatch: tx,
      start: (request) => this.crew.start(request),
      submit: tx,
      approve: pullRequests ? (request) => pullRequests.approve(request) : tx,
      'request-changes': tx,
      merge: (request) => {
        const refusal = pullRequests?.mergeRefusal(request.args.worker);
        return refusal ? Promise.resolve(refusal) : this.crew.merge(request);
      },
      'send-failure': pullRequests ? (request) => pullRequests.sendFailure(request) : noPullRequests,
      'send-review': pullRequests ? (request) => pullRequests.sendReview(request) : noPullRequests,
      cancel: (request) => this.crew.cancel(request),
      fail: tx,
      reset: (request) => this.crew.reset(request),
      retry: tx,
      heartbeat: tx,
      stall: tx,
      pause: tx,
      answer: tx,
      tell: (request) => this.crew.tell(request),
      interrupt: (request) => this.crew.interrupt(request),
      usage: tx,
      send: tx,
      poll: tx,
      ack: tx,
      status: tx,
      transitions: tx,
      metrics: tx,
      export: (request) => withIdentity(() => tx(request)),
      compact: tx,
      archive: (request) => withIdentity(() => tx(request)),
      'archive.state': tx,
      'overlap.run-after': (request) => overlapActions.runAfter(request),
      'overlap.rebase-when-merged': (request) => overlapActions.rebaseWhenMerged(request),
      'overlap.ignore': (request) => overlapActions.ignore(request),
    };
    this.plainRoutes = new Set((Object.keys(this.routes) as CommandName[]).filter((command) => this.routes[command] === tx));
    this.disposables.add(this._onDidFailInBackground);
    this.disposables.add(this.external);
    this.background = this.disposables.add(
      new EngineBackground({
        tx: this.tx,
        services,
        settings,
        clock,
        archive: deps.archive,
        lease,
        pullRequests,
        withIdentity,
        reportFailure: (error) => this._onDidFailInBackground.fire(error),
      }),
    );
  }

  get settings(): EngineSettings {
    return this.deps.settings;
  }

  /**
   * Every request: its transaction, with the git and agent steps of the flows around it, saved before
   * the answer (`saving: 'now'`) or, for a caller that answers after `whenSaved()` (the endpoint), with
   * one fsync for the others taken meanwhile (`'later'`, group commit; a flow saves each step itself).
   * Async: a transaction that throws (a store that cannot save) rejects rather than throws at the caller.
   */
  execute<C extends CommandName>(request: RequestOf<C>, options?: { readonly saving?: 'now' }): Promise<Result<ResultOf<C>>>;
  execute<C extends CommandName>(request: RequestOf<C>, options: SavingLater): Promise<Result<ResultOf<C> | SerializedValue>>;
  async execute<C extends CommandName>(
    request: RequestOf<C>,
    options: { readonly saving?: 'now' } | SavingLater = {},
  ): Promise<Result<ResultOf<C> | SerializedValue>> {
    const route = this.routes[request.command];
    if (options.saving !== 'later') return await route(request);
    const paged = options.between && readStatusInPages(this.tx, this.deps.clock ?? systemClock, request, options.between);
    if (paged) return ok(await paged);
    const { store } = this.deps;
    if (!this.plainRoutes.has(request.command) || !store.savingLater) return await route(request);
    return await store.savingLater(() => route(request));
  }

  /** Resolves once every write so far is saved (see `execute`'s `saving: 'later'`). */
  whenSaved(): Promise<void> {
    return this.deps.store.whenSaved?.() ?? Promise.resolve();
  }

  /** `execute` of a read-only request, answered synchronously: the views' models draw from it in a synchronous `snapshot()`. */
  query<C extends ReadCommand>(request: RequestOf<C>): Result<ResultOf<C>> {
    return this.tx.apply(request);
  }

  /**
   * For long-running owners: recover after a restart, then let the waker dispatch on every
   * →Queued and keep one timer each for the next due task and the next liveness deadline.
   */
  startBackground(): void {
    this.background.start();
    this.overlaps.refreshHeld();
  }

  /**
   * Another owner of the shared store committed a change (its notification, src/infra/pg/listener.ts).
   * Each part acts only on what concerns it (issue 29), everything when `changed` is undefined or
   * does not say: the dispatcher runs when work may have become runnable, the monitor reads the
   * deadlines of the workers that moved into a watched state, the crew looks at the workers when
   * some are this machine's (assigned here: started; moved away from work: stopped), and views
   * hear of the rows through `onDidChangeExternally`.
   */
  noteExternalChange(changed?: ChangedRows): void {
    if (this.isDisposed) return;
    this.background.noteExternal(changed);
    const host = this.deps.owner?.host;
    if (!changed?.hosts || host === undefined || changed.hosts.includes(host)) this.crew.noteExternal(changed?.workers);
    // A task another machine merged may be one a task here waits for (`rebase-when-merged`).
    if (!changed || changed.tasks.length) this.overlaps.noteExternal();
    this.external.fire(changed);
  }

  /** After an owner restart: agents of WORKING workers are gone; their work is saved and retried. */
  recoverOrphans(): Promise<void> {
    return this.crew.recoverOrphans();
  }

  /**
   * A clean stop of a long-running owner (issue 29), right before `dispose` (which ends its renewals):
   * its `owners` row goes, or its lease ends now while work still hangs on it (ownerLease.ts). A store
   * that cannot take it (the server is away) leaves the lease to run out, as a crash would. `dispose`
   * alone leaves the lease as it is: an owner that vanishes without a word.
   */
  endLease(): void {
    this.background.endLease();
  }

  dispose(): void {
    this.isDisposed = true;
    this.disposables.dispose();
  }
}

import { type CommandName, type ReadCommand, type RequestOf, readOnlyCommands } from '../core/requests';
import { type Result, ok } from '../core/result';
import { ChainCoordinator } from './chainCoordinator';
import { Crew, type CrewSettings } from './crew';
import { Dispatcher } from './dispatcher';
import { type Disposable, DisposableStore, Emitter, type Event } from './events';
import { type LeaseClock, LeaseNotice, OwnerLease, type Renewal, engineLeaseClock } from './ownerLease';
import { Archiver, isPlan } from './archiver';
import { RunOnceScheduler } from './async';
import { Exporter } from './exporter';
import { offsetLeaseClock } from './teamView';
import { ensureStoreId } from './storeIdentity';
import { type Services, createHandlers } from './handlers';
import { HeartbeatService } from './heartbeats';
import { MessageBus } from './messageBus';
import { Monitor } from './monitor';
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
import { QueuePicker } from './queuePicker';
import { ExternalChanges } from './externalChanges';
import { lastTransitionSeq, listBeatSignsOffHost, listTransitionSubjects } from './queries';
import { QueueWaker } from './queueWaker';
import type { ResultOf, TxCommand } from './results';
import type { EngineSettings } from './settings';
import { StateService } from './stateService';
import { TaskCatalog } from './taskCatalog';
import { Transactor } from './transactor';
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
}

/**
 * Retention runs soon after an owner starts, then after a commit once the oldest archivable row
 * has come due, or an hour has passed (no timer of its own while nothing happens); a backlog goes a
 * batch at a time. Each pass first brings the JSONL exports up to date, a step at a time.
 */
const archiveFirstMs = 5_000;
const archiveBacklogPauseMs = 50;
/** How often status measures the lease clock (the server's) against this process's: teamView.ts. */
const statusClockEveryMs = 10_000;
/** The longest the exports lag behind a working crew: a pass comes at least this often. */
const exportEveryMs = 3_600_000;
/** After retention was refused (a stray segment waits for a person), how long until it is tried again. */
const archiveRetryMs = 60_000;
/**
 * Rows of each export stream per step: a step of ~14 ms here (p99 ~30 ms; bench/exportSteps.bench.ts),
 * so that a week's backlog is no stop-the-world.
 */
const exportRowsPerStep = 500;
/** Tasks per retention batch: small enough that one batch is a short write (bench/retention.bench.ts). */
const archiveBatchTasks = 50;

/** How each command is carried out: its transaction, or a flow of git and agent steps around it. */
type Routes = { readonly [C in CommandName]: (request: RequestOf<C>) => Promise<Result<ResultOf<C>>> };

/**
 * The engine's one front door: every request, from the CLI, the endpoint or the VS Code host,
 * goes through `execute` and gets its command's typed result. A request is one guarded
 * transaction; `start`, `merge`, `cancel` and `reset` are flows whose git and agent steps run
 * around their transactions. Events fire only after a commit. The same engine runs in the
 * VS Code host, `foreman serve` and a one-shot CLI call.
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

  private readonly clock: Clock;
  private readonly tx: Transactor;
  private readonly crew: Crew;
  private readonly routes: Routes;
  /** The commands that are one transaction each (their route is `tx` below). */
  private readonly plainRoutes: ReadonlySet<CommandName>;
  private readonly services: Services;
  private readonly disposables = new DisposableStore();
  private waker: QueueWaker | undefined;
  private readonly lease: OwnerLease | undefined;
  /** This owner's lease is kept (a long-running owner): the work it hands out hangs on it. */
  private leaseRunning = false;
  private archiving: RunOnceScheduler | undefined;
  /** A batch is between its steps (chosen, its segment being written): the next waits. */
  private archivingInSteps = false;
  /** When the oldest row retention would take comes due (Infinity: none). */
  private archiveDueAt = Number.POSITIVE_INFINITY;

  constructor(private readonly deps: EngineDeps) {
    const { settings } = deps;
    this.clock = deps.clock ?? systemClock;
    const picker = new QueuePicker({
      leaseMs: settings.liveness.staleMs,
      branchTemplate: settings.branchTemplate,
      recordInClaim: deps.store.dialect === 'postgres',
    });
    const catalog = new TaskCatalog(settings.defaultMaxAttempts, deps.random);
    const chains = new ChainCoordinator(catalog);
    const state = new StateService(
      {
        defaultMaxAttempts: settings.defaultMaxAttempts,
        backoff: settings.backoff,
        leaseMs: settings.liveness.staleMs,
        ...(deps.owner ? { owner: deps.owner } : {}),
        leaseHolder: () => (this.leaseRunning ? deps.owner?.id : undefined),
      },
      picker,
      chains,
    );
    const monitor = new Monitor(settings, state);
    const agents = deps.agents;
    const exporter = new Exporter(deps.exports);
    if (agents) monitor.useSignals((workerId) => agents.signals(workerId));
    this.services = {
      state,
      catalog,
      chains,
      monitor,
      picker,
      dispatcher: new Dispatcher(
        { concurrency: settings.concurrency, teamConcurrency: settings.teamConcurrency },
        picker,
        state,
        deps.owner?.host,
      ),
      heartbeats: new HeartbeatService(settings.liveness.staleMs),
      bus: new MessageBus(settings, deps.blobs),
      exporter,
      archiver: new Archiver(deps.archive, exporter),
      retainFinishedMs: settings.retainFinishedMs,
      // Status shows a shared store's owners, their leases judged by the clock the leases are kept by.
      team: deps.owner
        ? {
            leaseMs: settings.ownerLeaseMs,
            clock: offsetLeaseClock(deps.leaseClock ?? engineLeaseClock(this.clock), () => this.clock.now(), statusClockEveryMs),
          }
        : undefined,
    };
    this.tx = this.disposables.add(new Transactor(deps.store, settings, this.clock, this.services, createHandlers(this.services)));
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
      this.clock,
    );
    this.onDidChangeExternally = this.external.event;
    this.crew = this.disposables.add(new Crew(this.tx, deps.git, agents, deps.crew, deps.owner?.host));
    this.lease = deps.owner ? new OwnerLease(deps.owner, settings.ownerLeaseMs, deps.leaseClock ?? engineLeaseClock(this.clock)) : undefined;
    const tx = <C extends TxCommand>(request: RequestOf<C>) => Promise.resolve(this.tx.apply(request));
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
      approve: tx,
      'request-changes': tx,
      merge: (request) => this.crew.merge(request),
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
      export: (request) => this.withIdentity(() => tx(request)),
      compact: tx,
      archive: (request) => this.withIdentity(() => tx(request)),
      'archive.state': tx,
    };
    this.plainRoutes = new Set((Object.keys(this.routes) as CommandName[]).filter((command) => this.routes[command] === tx));
    this.disposables.add(this._onDidFailInBackground);
    this.disposables.add(this.external);
  }

  get settings(): EngineSettings {
    return this.deps.settings;
  }

  /** Every request: its transaction, with the git and agent steps of the flows around it. */
  async execute<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>> {
    // Async, so that a transaction that throws (a store that cannot save) rejects the promise
    // rather than throwing at the caller, who may only be listening with `.catch`.
    return await this.routes[request.command](request);
  }

  /**
   * `execute` for a caller that answers only after `whenSaved()` (the endpoint): a request that is
   * one transaction shares its fsync with the others taken meanwhile (group commit). A flow (start,
   * merge, cancel, reset) saves each step itself before its git or agent work, as under `execute`.
   */
  async executeSavingLater<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>> {
    const route = this.routes[request.command];
    const { store } = this.deps;
    if (!this.plainRoutes.has(request.command) || !store.savingLater) return await route(request);
    return await store.savingLater(() => route(request));
  }

  /** Resolves once every write so far is saved (see `executeSavingLater`). */
  whenSaved(): Promise<void> {
    return this.deps.store.whenSaved?.() ?? Promise.resolve();
  }

  /** A read-only request, answered now (views draw from it synchronously). */
  query<C extends ReadCommand>(request: RequestOf<C>): Result<ResultOf<C>> {
    return this.tx.apply(request);
  }

  /**
   * For long-running owners: recover after a restart, then let the waker dispatch on every
   * →Queued and keep one timer each for the next due task and the next liveness deadline.
   */
  startBackground(): void {
    if (this.waker) return;
    const { monitor, dispatcher, picker } = this.services;
    if (this.lease) this.startLease(this.lease);
    this.tx.internal('monitor', (unit) => ok(monitor.sweep(unit, 'checked at owner start')));
    this.waker = this.disposables.add(
      new QueueWaker(
        {
          onDidCommit: this.tx.onDidCommit,
          dispatch: () => void this.tx.internal('dispatcher', (unit) => ok(dispatcher.dispatch(unit))),
          nextDue: (now) => this.tx.read((reader) => picker.nextDue(reader, now)),
          deadlines: (ids) => this.tx.read((reader) => monitor.deadlines(reader, ids)),
          sweep: () => void this.tx.internal('monitor', (unit) => ok(monitor.sweep(unit))),
          reportFailure: (error) => this._onDidFailInBackground.fire(error),
        },
        this.clock,
      ),
    );
    this.waker.wake();
    const archiving = this.disposables.add(new RunOnceScheduler(() => this.archiveDue(), archiveFirstMs, this.clock));
    this.archiving = archiving;
    archiving.schedule();
    this.disposables.add(
      this.tx.onDidCommit(() => {
        const now = this.clock.now();
        // With nothing due before, what this commit wrote is the oldest: due a window (or an hour) from now.
        if (this.archiveDueAt === Number.POSITIVE_INFINITY)
          this.archiveDueAt = now + Math.min(this.deps.settings.retainFinishedMs, exportEveryMs);
        if (!archiving.isScheduled && now >= this.archiveDueAt) archiving.schedule(0);
      }),
    );
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
    this.waker?.noteExternal(changed && (changed.liveness ?? changed.workers), changed?.mayHaveWork ?? true);
    const host = this.deps.owner?.host;
    if (!changed?.hosts || host === undefined || changed.hosts.includes(host)) this.crew.noteExternal(changed?.workers);
    this.external.fire(changed);
  }

  /** The lease of this owner: registered now, renewed every third of it, the others' checked each time. */
  private startLease(lease: OwnerLease): void {
    this.leaseRunning = true;
    try {
      const at = this.tx.internal('owner', (unit) => ok(lease.register(unit)), { quiet: true });
      if (at.ok) lease.succeeded('registered', at.value, this.clock.now());
    } catch (error) {
      // The server is away: the first renewal registers this owner once it answers.
      const notice = lease.failed(error, this.clock.now());
      if (notice) this._onDidFailInBackground.fire(notice);
    }
    const renewing = this.disposables.add(
      new RunOnceScheduler(
        () => {
          try {
            this.renewLease(lease);
          } catch (error) {
            this._onDidFailInBackground.fire(error);
          }
          renewing.schedule();
        },
        lease.renewEveryMs,
        this.clock,
      ),
    );
    renewing.schedule();
  }

  /** Renews first, then judges the others (ownerLease.ts): after an outage, each owner's own renewal comes before anyone's verdict. */
  private renewLease(lease: OwnerLease): void {
    let renewed: Result<{ renewal: Renewal; at: number }>;
    try {
      renewed = this.tx.internal('owner', (unit) => ok(lease.renew(unit)), { quiet: true });
    } catch (error) {
      const notice = lease.failed(error, this.clock.now());
      if (notice) this._onDidFailInBackground.fire(notice);
      return;
    }
    const notice = renewed.ok ? lease.succeeded(renewed.value.renewal, renewed.value.at, this.clock.now()) : undefined;
    if (notice) this._onDidFailInBackground.fire(notice);
    const expired = this.tx.read((reader) => lease.expired(reader));
    for (const owner of expired) {
      this.tx.internal('owner', (unit, s) => ok(lease.takeBack(unit, s.state, owner)));
    }
  }

  /**
   * One retention batch, in steps so that no request waits behind its file work: the batch is chosen
   * in one transaction, its segment written and fsync'd on the thread pool, and applied in another
   * transaction if its rows are still as written (archiver.ts). A backlog continues after a short
   * pause, so requests are answered in between.
   */
  private archiveDue(): void {
    if (this.archivingInSteps) return;
    this.archivingInSteps = true;
    void this.archiveInSteps().then((more) => {
      this.archivingInSteps = false;
      if (more) this.archiving?.schedule(archiveBacklogPauseMs);
    });
  }

  /** The store's identity is committed (once, in a transaction of its own) before any file is written that names it. */
  private identityKnown = false;

  private withIdentity<T>(work: () => T): T {
    if (!this.identityKnown) {
      const made = this.tx.internal('store', (unit) => ok(ensureStoreId(unit.tx)), { quiet: true });
      this.identityKnown = made.ok;
    }
    return work();
  }

  private async archiveInSteps(): Promise<boolean> {
    try {
      this.withIdentity(() => undefined);
      const before = this.clock.now() - this.deps.settings.retainFinishedMs;
      // A refusal is an answer here, not a rejected request: what was done before it stands (an export step).
      const outcome = this.tx.internal('archiver', (unit) =>
        ok(this.services.archiver.plan(unit, before, archiveBatchTasks, exportRowsPerStep)),
      );
      if (!outcome.ok) return false;
      const planned = outcome.value;
      if (!planned.ok) return this.archiveRefused(planned.message);
      let done = isPlan(planned.value) ? undefined : planned.value;
      if (isPlan(planned.value)) {
        const plan = planned.value;
        // False: `foreman archive` wrote this batch meanwhile; choose again after the pause.
        const hash = await this.deps.archive.writeInBackground(plan.draft);
        if (hash === false) return true;
        const applied = this.tx.internal('archiver', (unit) => ok(this.services.archiver.applyPlanned(unit, plan, hash)));
        done = applied.ok ? applied.value : undefined;
      }
      if (!done) return false;
      if (this.archiveRefusal !== undefined) {
        this.archiveRefusal = undefined;
        this._onDidFailInBackground.fire(
          new Error(
            `archive: retention goes on${done.batch !== null ? ` (segment ${done.batch} written)` : ''}; what stood in its way is gone`,
          ),
        );
      }
      const oldest = this.tx.read((reader, services) => services.archiver.oldestArchivable(reader));
      const archivable = oldest === undefined ? Number.POSITIVE_INFINITY : oldest + this.deps.settings.retainFinishedMs;
      this.archiveDueAt = Math.min(archivable, this.clock.now() + exportEveryMs);
      return done.more;
    } catch (error) {
      this._onDidFailInBackground.fire(error);
      return false;
    }
  }

  /**
   * Retention refused (a stray segment, another store's export file, a file where the archive folder
   * goes): said once until it changes, and tried again a minute on; the exports go on meanwhile
   * unless they are what refused.
   */
  private archiveRefusal: string | undefined;

  private archiveRefused(message: string): boolean {
    if (message !== this.archiveRefusal) this._onDidFailInBackground.fire(new Error(message));
    this.archiveRefusal = message;
    this.tx.internal('exporter', (unit, services) => ok(services.exporter.exportSome(unit, exportRowsPerStep)));
    this.archiveDueAt = this.clock.now() + archiveRetryMs;
    return false;
  }

  /** After an owner restart: agents of WORKING workers are gone; their work is saved and retried. */
  recoverOrphans(): Promise<void> {
    return this.crew.recoverOrphans();
  }

  private isDisposed = false;

  /**
   * A clean stop of a long-running owner (issue 29), right before `dispose` (which ends its renewals):
   * its `owners` row goes, or its lease ends now while work still hangs on it (ownerLease.ts). A store
   * that cannot take it (the server is away) leaves the lease to run out, as a crash would. `dispose`
   * alone leaves the lease as it is: an owner that vanishes without a word.
   */
  endLease(): void {
    const lease = this.lease;
    if (!lease || !this.leaseRunning || this.isDisposed) return;
    this.leaseRunning = false;
    try {
      this.tx.internal('owner', (unit) => ok(lease.stop(unit)), { quiet: true });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this._onDidFailInBackground.fire(
        new LeaseNotice(
          `owner ${lease.owner.id} stops without ending its lease (${reason}); the other owners take it for gone once it runs out`,
        ),
      );
    }
  }

  dispose(): void {
    this.isDisposed = true;
    this.disposables.dispose();
  }
}

/** Whether a command only reads (and may go to `query`). */
export function isReadCommand(command: CommandName): command is ReadCommand {
  return readOnlyCommands.has(command);
}

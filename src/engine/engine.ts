import { randomUUID } from 'node:crypto';
import type { Request } from '../core/requests';
import { type Result, invalid, ok } from '../core/result';
import { ChainCoordinator } from './chainCoordinator';
import { Dispatcher } from './dispatcher';
import { type Disposable, DisposableStore, Emitter, type Event } from './events';
import { Exporter } from './exporter';
import { type AnyHandler, type HandlerMap, createHandlers, subjectOf } from './handlers';
import { HeartbeatService } from './heartbeats';
import { MessageBus } from './messageBus';
import { Monitor } from './monitor';
import { type BlobStore, type Clock, type ExportSink, type Reader, type Store, systemClock } from './ports';
import { QueuePicker } from './queuePicker';
import { QueueWaker } from './queueWaker';
import type { EngineSettings } from './settings';
import { StateService } from './stateService';
import { TaskCatalog } from './taskCatalog';
import type { EngineEvent, Unit } from './unit';

export interface EngineDeps {
  readonly store: Store;
  readonly settings: EngineSettings;
  readonly blobs: BlobStore;
  readonly exports: ExportSink;
  readonly clock?: Clock;
  readonly random?: () => number;
}

/**
 * The engine: every request goes through `execute`, one transaction per request, events fired
 * only after the commit. The same engine runs in the VS Code host, `foreman serve` and a
 * one-shot CLI call.
 */
export class Engine implements Disposable {
  private readonly _onDidCommit = new Emitter<readonly EngineEvent[]>();
  /** Fires after every commit with the events it produced. */
  readonly onDidCommit: Event<readonly EngineEvent[]> = this._onDidCommit.event;

  private readonly _onDidFailInBackground = new Emitter<unknown>();
  /**
   * Fires when engine-internal work (the dispatcher, the liveness monitor) threw, e.g. because a
   * full disk kept its write from being saved. That work is tried again later by itself.
   */
  readonly onDidFailInBackground: Event<unknown> = this._onDidFailInBackground.event;

  private readonly clock: Clock;
  private readonly handlers: HandlerMap;
  private readonly disposables = new DisposableStore();
  readonly monitor: Monitor;
  readonly picker: QueuePicker;
  /** For orchestration that must move state after async work (merges, agent exits). */
  readonly state: StateService;
  private waker: QueueWaker | undefined;

  constructor(private readonly deps: EngineDeps) {
    const { settings } = deps;
    this.clock = deps.clock ?? systemClock;
    this.picker = new QueuePicker({ leaseMs: settings.liveness.staleMs, branchTemplate: settings.branchTemplate });
    const catalog = new TaskCatalog(settings.defaultMaxAttempts, deps.random);
    const chains = new ChainCoordinator(catalog);
    const state = (this.state = new StateService(
      { defaultMaxAttempts: settings.defaultMaxAttempts, backoff: settings.backoff, leaseMs: settings.liveness.staleMs },
      this.picker,
      chains,
    ));
    this.monitor = new Monitor(settings, state);
    this.handlers = createHandlers({
      state,
      catalog,
      chains,
      monitor: this.monitor,
      dispatcher: new Dispatcher(settings.concurrency, this.picker, state),
      heartbeats: new HeartbeatService(settings.liveness.staleMs),
      bus: new MessageBus(settings, deps.blobs),
      exporter: new Exporter(deps.exports),
    });
    this.disposables.add(this._onDidCommit);
    this.disposables.add(this._onDidFailInBackground);
  }

  get settings(): EngineSettings {
    return this.deps.settings;
  }

  execute(request: Request): Result<unknown> {
    const handler: AnyHandler = this.handlers[request.command];
    const now = this.clock.now();
    if (handler.mode === 'read') return this.deps.store.read((reader) => handler.run(reader, request.args, now));
    return this.write(request, now, (unit) => handler.run(unit, request.args), this.isDurable(request));
  }

  /** Heartbeats skip their own fsync (ARCHITECTURE §2) unless they revive a STALE worker. */
  private isDurable(request: Request): boolean {
    if (request.command !== 'heartbeat') return true;
    const { worker } = request.args as { worker: string };
    return this.deps.store.read(
      (reader) => reader.get<{ state: string }>('SELECT state FROM workers WHERE id = ?', [worker])?.state === 'STALE',
    );
  }

  /** Runs engine-internal work (the monitor, the dispatcher) as its own transaction. */
  runInternal<T>(actor: string, work: (unit: Unit) => Result<T>): Result<T> {
    const request: Request<'dispatch'> = { command: 'dispatch', args: {}, actor };
    return this.write(request, this.clock.now(), work, true) as Result<T>;
  }

  private write(request: Request, now: number, work: (unit: Unit) => Result<unknown>, durable: boolean): Result<unknown> {
    const events: EngineEvent[] = [];
    const result = this.deps.store.write(
      (tx) => {
        const unit: Unit = { tx, now, actor: request.actor, requestId: request.requestId, events };
        const replay = request.requestId ? this.replayed(unit, request) : undefined;
        if (replay) return replay;
        const outcome = work(unit);
        if (!outcome.ok) return outcome;
        this.publishStateChanges(unit);
        if (request.requestId) {
          tx.run('INSERT INTO idempotency_keys (request_id, command, response, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
            request.requestId,
            request.command,
            JSON.stringify(outcome.value ?? null),
            now,
            now + this.deps.settings.idempotencyTtlMs,
          ]);
          tx.run('DELETE FROM idempotency_keys WHERE expires_at < ?', [now]);
        }
        return outcome;
      },
      { durable },
    );
    if (result.ok) {
      if (events.length) this._onDidCommit.fire(events);
    } else if (result.kind === 'refused') {
      this.recordRejection(request, now, result.code, result.message, result.details);
    }
    return result;
  }

  /** Seed 004 §3: the same request id returns the first result without applying twice. */
  private replayed(unit: Unit, request: Request): Result<unknown> | undefined {
    const key = unit.tx.get<{ command: string; response: string }>(
      'SELECT command, response FROM idempotency_keys WHERE request_id = ? AND expires_at >= ?',
      [request.requestId!, unit.now],
    );
    if (!key) return undefined;
    if (key.command !== request.command) {
      return invalid(
        'requestIdReused',
        `request-id: '${request.requestId}' was already used for ${key.command}; use a new id for a different request.`,
      );
    }
    unit.tx.run(
      `INSERT INTO meta (key, value) VALUES ('idempotency_hits', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
    );
    return ok(JSON.parse(key.response) as unknown);
  }

  /** ARCHITECTURE §7: every transition is also a broadcast `state_change` message on the bus. */
  private publishStateChanges(unit: Unit): void {
    for (const event of unit.events) {
      if (event.kind !== 'worker' && event.kind !== 'task') continue;
      unit.tx.run(
        `INSERT INTO messages (id, ts_ms, from_agent, to_agent, type, payload) VALUES (?, ?, 'foreman', NULL, 'state_change', ?)`,
        [
          randomUUID(),
          unit.now,
          JSON.stringify({ entity: event.kind, id: event.id, from: event.from, to: event.to, trigger: event.trigger }),
        ],
      );
    }
  }

  private recordRejection(
    request: Request,
    now: number,
    code: string,
    reason: string,
    details: Readonly<Record<string, unknown>> | undefined,
  ): void {
    const subject = subjectOf(request.args);
    const entity = details?.['entity'] === 'task' || details?.['entity'] === 'worker' ? details['entity'] : subject.entity;
    this.deps.store.write(
      (tx) => {
        tx.run(
          `INSERT INTO rejections (ts_ms, entity_type, entity_id, from_state, trigger, code, reason, actor, attempt, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            now,
            entity,
            typeof details?.['id'] === 'string' ? details['id'] : subject.id,
            typeof details?.['from'] === 'string' ? details['from'] : null,
            typeof details?.['trigger'] === 'string' ? details['trigger'] : request.command,
            code,
            reason,
            request.actor,
            typeof details?.['claimed'] === 'number' ? details['claimed'] : null,
            request.requestId ?? null,
          ],
        );
        return ok(undefined);
      },
      { durable: false },
    );
    this._onDidCommit.fire([{ kind: 'rejected', entity, id: subject.id, code }]);
  }

  /**
   * For long-running owners: recover after a restart, then let the waker dispatch on every
   * →Queued and keep one timer each for the next due task and the next liveness deadline.
   */
  startBackground(): void {
    if (this.waker) return;
    this.runInternal('monitor', (unit) => ok(this.monitor.sweep(unit, 'checked at owner start')));
    this.waker = this.disposables.add(new QueueWaker(this, this.clock));
    this.waker.wake();
  }

  /** Said by the waker when internal work failed; it retries by itself. */
  reportBackgroundFailure(error: unknown): void {
    this._onDidFailInBackground.fire(error);
  }

  /** A consistent read of the state, for views. */
  read<T>(fn: (reader: Reader) => T): T {
    return this.deps.store.read(fn);
  }

  now(): number {
    return this.clock.now();
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

import { randomUUID } from 'node:crypto';
import type { Request, RequestOf, ResultOf } from '../core/requests';
import { type Result, invalid, ok, refused } from '../core/result';
import { DisposableBase, Emitter, type Event } from '../base/lifetime';
import { type Handler, type HandlerMap, type Services, type TxCommand, subjectOf } from './handlers';
import type { Clock, Reader, Store } from './ports';
import {
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  incrementIdempotencyHits,
  insertIdempotencyKey,
  insertRejection,
  insertStateChangeMessages,
} from './queries';
import type { EngineSettings } from './settings';
import { type EngineEvent, type Unit, changedRowsOf } from './unit';

/** The part of a request a transaction is recorded under (idempotency key, audit log). */
export type RequestHeader = Pick<Request, 'command' | 'requestId' | 'actor'> & { readonly args?: object };

/**
 * The guarded transactions under the engine's front door (internal to src/engine): one
 * transaction per step, the idempotency key checked and stored in it, events fired only after
 * the commit, refusals written to the rejections log.
 */
export class Transactor extends DisposableBase {
  private readonly _onDidCommit = this._register(new Emitter<readonly EngineEvent[]>());
  readonly onDidCommit: Event<readonly EngineEvent[]> = this._onDidCommit.event;

  constructor(
    private readonly store: Store,
    private readonly settings: EngineSettings,
    /** The engine's clock: the crew's timers run on it too (agentRunner.ts). */
    readonly clock: Clock,
    private readonly services: Services,
    private readonly handlers: HandlerMap,
  ) {
    super();
  }

  /** A request that is one transaction and nothing else. */
  apply<C extends TxCommand>(request: RequestOf<C>): Result<ResultOf<C>> {
    const handler: Handler<C> = this.handlers[request.command];
    const now = this.clock.now();
    if (handler.mode === 'read') return this.store.read((reader) => handler.run(reader, request.args, now));
    return this.write(request, now, (unit) => handler.run(unit, request.args), isHeartbeat(request) ? movedAState : true);
  }

  /** One step of a flow (start, merge, cancel, reset), recorded under the flow's request. */
  step<T>(request: RequestHeader, work: (unit: Unit, services: Services) => Result<T>): Result<T> {
    return this.write(request, this.clock.now(), (unit) => work(unit, this.services), true);
  }

  /**
   * Engine-internal work (the monitor, the dispatcher, the crew's reactions) as its own transaction;
   * `durable: false` for rows that can be had again without the store (the overlaps' touched files).
   */
  internal<T>(
    actor: string,
    work: (unit: Unit, services: Services) => Result<T>,
    options: { quiet?: boolean; durable?: boolean } = {},
  ): Result<T> {
    return this.write(
      { command: 'dispatch', actor },
      this.clock.now(),
      (unit) => work(unit, this.services),
      options.durable ?? true,
      options.quiet,
    );
  }

  read<T>(fn: (reader: Reader, services: Services) => T): T {
    return this.store.read((reader) => fn(reader, this.services));
  }

  now(): number {
    return this.clock.now();
  }

  private write<T>(
    request: RequestHeader,
    now: number,
    work: (unit: Unit) => Result<T>,
    durable: boolean | Durability,
    quiet = false,
  ): Result<T> {
    // A flow whose git or agent step outlived the engine (an owner closing mid-start) ends here,
    // not on a closed store; what it did not record is picked up when the workspace opens again.
    if (this.isDisposed) {
      return refused(
        'closing',
        `Foreman is closing: '${request.command}' was not recorded; it is taken up again when the workspace opens.`,
      );
    }
    const events: EngineEvent[] = [];
    const { requestId } = request;
    const result = this.store.write(
      (tx) => {
        const unit: Unit = { tx, now, actor: request.actor, requestId, events };
        const replay = requestId ? this.replayed<T>(unit, request.command, requestId) : undefined;
        if (replay) return replay;
        const outcome = work(unit);
        if (!outcome.ok) return outcome;
        this.publishStateChanges(unit);
        if (requestId) {
          const response = JSON.stringify(outcome.value ?? null);
          insertIdempotencyKey(tx, requestId, request.command, response, now, now + this.settings.idempotencyTtlMs);
          deleteExpiredIdempotencyKeys(tx, now);
        }
        return outcome;
      },
      { durable: typeof durable === 'function' ? () => durable(events) : durable, quiet, changed: () => changedRowsOf(events) },
    );
    if (result.ok) {
      if (events.length) this._onDidCommit.fire(events);
    } else if (result.kind === 'refused') {
      this.recordRejection(request, subjectOf(request.args ?? {}), now, result.code, result.message, result.details);
    }
    return result;
  }

  /** Seed 004 §3: the same request id returns the first result without applying twice. */
  private replayed<T>(unit: Unit, command: string, requestId: string): Result<T> | undefined {
    const key = findIdempotencyKey(unit.tx, requestId, unit.now);
    if (!key) return undefined;
    if (key.command !== command) {
      return invalid(
        'requestIdReused',
        `request-id: '${requestId}' was already used for ${key.command}; use a new id for a different request.`,
      );
    }
    incrementIdempotencyHits(unit.tx);
    // Stored by this same command's success above, in this same store: its result, as JSON.
    return ok(JSON.parse(key.response) as T);
  }

  /** ARCHITECTURE §7: every transition is also a broadcast `state_change` message on the bus (one INSERT for them all). */
  private publishStateChanges(unit: Unit): void {
    const messages: { id: string; payload: string }[] = [];
    for (const event of unit.events) {
      if ((event.kind !== 'worker' && event.kind !== 'task') || event.published) continue;
      const payload = JSON.stringify({ entity: event.kind, id: event.id, from: event.from, to: event.to, trigger: event.trigger });
      messages.push({ id: randomUUID(), payload });
    }
    insertStateChangeMessages(unit.tx, unit.now, messages);
  }

  private recordRejection(
    request: RequestHeader,
    subject: { entity: 'worker' | 'task'; id: string },
    now: number,
    code: string,
    reason: string,
    details: Readonly<Record<string, unknown>> | undefined,
  ): void {
    const entity = details?.['entity'] === 'task' || details?.['entity'] === 'worker' ? details['entity'] : subject.entity;
    this.store.write(
      (tx) => {
        insertRejection(tx, {
          tsMs: now,
          entity,
          entityId: typeof details?.['id'] === 'string' ? details['id'] : subject.id,
          fromState: typeof details?.['from'] === 'string' ? details['from'] : null,
          trigger: typeof details?.['trigger'] === 'string' ? details['trigger'] : request.command,
          code,
          reason,
          actor: request.actor,
          attempt: typeof details?.['claimed'] === 'number' ? details['claimed'] : null,
          requestId: request.requestId ?? null,
        });
        return ok(undefined);
      },
      // A refusal changed no worker or task: the other owners need not read anything again.
      { durable: false, quiet: true },
    );
    this._onDidCommit.fire([{ kind: 'rejected', entity, id: subject.id, code }]);
  }
}

/** Whether a write must be fsync'd, decided from what it did. */
type Durability = (events: readonly EngineEvent[]) => boolean;

/**
 * Heartbeats skip their own fsync (ARCHITECTURE §2) unless they moved a state (revived a STALE
 * worker): decided after the work, so a beat does not read its worker once more to know.
 */
const movedAState: Durability = (events) => events.some((event) => event.kind === 'worker' || event.kind === 'task');

function isHeartbeat(request: RequestOf<TxCommand>): request is RequestOf<'heartbeat'> {
  return request.command === 'heartbeat';
}

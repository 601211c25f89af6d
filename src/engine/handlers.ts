import type { CommandArgs, CommandName, ResultOf } from '../core/requests';
import { type Result, notFound, ok } from '../core/result';
import type { ChainCoordinator } from './chainCoordinator';
import type { Dispatcher } from './dispatcher';
import { recordUsage } from './agentSessions';
import { readArchiveState } from './archiveChain';
import type { Archiver } from './archiver';
import { readTransitions, type Exporter } from './exporter';
import type { HeartbeatService } from './heartbeats';
import type { MessageBus } from './messageBus';
import { readMetrics } from './metrics';
import type { Monitor } from './monitor';
import type { OverlapForecast } from './overlaps/overlapForecast';
import { readOverlaps } from './overlaps/overlapStore';
import type { Reader } from './ports';
import { workerExists } from './queries';
import type { QueuePicker } from './queuePicker';
import { findTask } from './rows';
import type { StateService } from './stateService';
import { readStatus } from './statusView';
import type { TeamLeases } from './teamView';
import type { TaskCatalog } from './taskCatalog';
import type { Unit } from './unit';

export interface Services {
  readonly state: StateService;
  readonly catalog: TaskCatalog;
  readonly chains: ChainCoordinator;
  readonly dispatcher: Dispatcher;
  readonly heartbeats: HeartbeatService;
  readonly bus: MessageBus;
  readonly monitor: Monitor;
  readonly picker: QueuePicker;
  readonly exporter: Exporter;
  readonly archiver: Archiver;
  /** How long finished work stays live before `archive` moves it out. */
  readonly retainFinishedMs: number;
  /** A store several owners share (undefined: one owner): what status needs to show their leases. */
  readonly team: TeamLeases | undefined;
  /** Files expected of tasks not yet started, for the dispatcher (their `paths` hints, docs/overlaps.md). */
  readonly forecast: OverlapForecast;
}

/** Commands whose success waits for git or an agent (async steps around the guarded transaction), or reaches an agent alone. */
export type FlowCommand =
  | 'start'
  | 'merge'
  | 'send-failure'
  | 'send-review'
  | 'cancel'
  | 'reset'
  | 'tell'
  | 'interrupt'
  | 'overlap.run-after'
  | 'overlap.rebase-when-merged'
  | 'overlap.ignore';
/** Commands that are one transaction and nothing else (their handlers are below). */
export type TxCommand = Exclude<CommandName, FlowCommand>;

type ReadHandler<C extends TxCommand> = {
  readonly mode: 'read';
  run(reader: Reader, args: CommandArgs<C>, now: number): Result<ResultOf<C>>;
};
type WriteHandler<C extends TxCommand> = { readonly mode: 'write'; run(unit: Unit, args: CommandArgs<C>): Result<ResultOf<C>> };
export type Handler<C extends TxCommand> = ReadHandler<C> | WriteHandler<C>;
/** One entry per single-transaction command, returning exactly its answer (`ResultOf`, from its answer schema). */
export type HandlerMap = { readonly [C in TxCommand]: Handler<C> };

/** Heartbeats Foreman sends for an agent whose process lives: they prove less than the agent's own. */
const beatSources: ReadonlySet<string> = new Set(['supervisor', 'crew', 'agent-events']);

const read = <C extends TxCommand>(run: ReadHandler<C>['run']): ReadHandler<C> => ({ mode: 'read', run });
const write = <C extends TxCommand>(run: WriteHandler<C>['run']): WriteHandler<C> => ({ mode: 'write', run });

/**
 * Every single-transaction command, exhaustively (a missing one is a type error). The flows
 * (start, merge, cancel, reset) do git and agent work around their transactions: see crew.ts.
 */
export function createHandlers(s: Services): HandlerMap {
  return {
    'worker.add': write((unit, args) => s.state.addWorker(unit, args)),
    'worker.list': read((reader, _args, now) => ok(readStatus(reader, s.monitor, now, {}, s.team, readOverlaps(reader)).workers)),
    'task.add': write((unit, args) => {
      const added = s.catalog.add(unit, args);
      if (added.ok && args.paths?.length) s.forecast.hint(unit.tx, added.value.id, args.paths);
      return added;
    }),
    'chain.add': write((unit, args) => s.chains.createChain(unit, args.name, args.steps)),
    'plan.start': write((unit, args) => s.chains.startPlanning(unit, args.parent)),
    'plan.add': write((unit, args) => s.chains.addChild(unit, args.parent, args.title, args.prompt)),
    'plan.finalize': write((unit, args) => s.chains.finalize(unit, args.parent)),
    assign: write((unit, args) => s.state.assign(unit, args.worker, args.task)),
    claim: write((unit, args) => s.state.claim(unit, args.worker)),
    dispatch: write((unit) => ok(s.dispatcher.dispatch(unit))),
    submit: write((unit, args) => s.state.submit(unit, args)),
    approve: write((unit, args) => s.state.approve(unit, args.worker)),
    'request-changes': write((unit, args) => s.state.requestChanges(unit, args.worker, args.note)),
    fail: write((unit, args) =>
      s.state.fail(unit, args.worker, args.reason, args.attempt, args.setup ? 'setup' : args.final ? 'final' : 'attempt'),
    ),
    retry: write((unit, args) => s.state.retry(unit, args.task)),
    heartbeat: write((unit, args) => s.heartbeats.beat(unit, args, beatSources.has(unit.actor) ? 'supervisor' : 'agent')),
    stall: write((unit, args) => s.heartbeats.stall(unit, args)),
    pause: write((unit, args) => s.state.pause(unit, args)),
    answer: write((unit, args) => s.heartbeats.answer(unit, args.worker, args.decision, args.note)),
    usage: write((unit, args) => recordUsage(unit, args)),
    send: write((unit, args) => s.bus.publish(unit, args)),
    poll: read((reader, args) => ok(s.bus.poll(reader, args.agent, args.limit))),
    ack: write((unit, args) => s.bus.ack(unit, args.agent, args.seq)),
    status: read((reader, args, now) => ok(readStatus(reader, s.monitor, now, args, s.team, readOverlaps(reader)))),
    transitions: read((reader, args) => {
      if (args.entity && !findTask(reader, args.entity) && !workerExists(reader, args.entity)) {
        const hint = `No worker or task with id '${args.entity}' is live; \`foreman history ${args.entity}\` reads the archive too.`;
        return { ...notFound('worker or task', args.entity), message: hint };
      }
      return ok(
        readTransitions(reader, {
          ...(args.entity ? { entity: args.entity } : {}),
          ...(args.afterSeq !== undefined ? { afterSeq: args.afterSeq } : {}),
          limit: args.limit,
          latest: args.latest,
        }),
      );
    }),
    metrics: read((reader, _args, now) => ok(readMetrics(reader, now))),
    export: write((unit) => s.exporter.export(unit)),
    compact: write((unit) => s.bus.compact(unit)),
    archive: write((unit, args) => s.archiver.archive(unit, unit.now - (args.olderThanMs ?? s.retainFinishedMs), args.limit)),
    'archive.state': read((reader) => ok(readArchiveState(reader))),
  };
}

/** The entity a refused request was about, for the rejections log. */
export function subjectOf(args: object): { entity: 'worker' | 'task'; id: string } {
  const fields = args as Record<string, unknown>;
  if (typeof fields['worker'] === 'string') return { entity: 'worker', id: fields['worker'] };
  if (typeof fields['task'] === 'string') return { entity: 'task', id: fields['task'] };
  if (typeof fields['parent'] === 'string') return { entity: 'task', id: fields['parent'] };
  if (typeof fields['target'] === 'string') return { entity: 'worker', id: fields['target'] };
  return { entity: 'task', id: '-' };
}

import { workerFits } from '../core/actions';
import type { Request, ResultOf } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { mergeWorker } from './crewMerge';
import { noteExternal, reactTo, recoverOrphans } from './crewReactions';
import { startWorker } from './crewStart';
import { CrewWork, type CrewSettings } from './crewWork';
import type { Disposable } from '../base/lifetime';
import type { AgentPort, GitPort } from './ports';
import { findWorkerIdHolding } from './queries';
import { findWorker } from './rows';
import type { Transactor } from './transactor';

const noTalkMessage = 'No agents run in this process: talk to them through the owner that runs them (VS Code or `foreman serve`).';

/**
 * Where state meets git and agents (ARCHITECTURE §5, §6), internal to the engine: the flows of
 * `start` (crewStart.ts), `merge` (crewMerge.ts), `cancel` and `reset` do their git work around
 * their transactions, one at a time per worker; with an AgentPort (a long-running owner) it also
 * launches agents on assignment, relaunches them on review notes and merge conflicts, and turns
 * their exits into submits or failed attempts (crewReactions.ts, agentRunner.ts). Work is
 * snapshotted before anything could lose it.
 */
export class Crew implements Disposable {
  /** What the flows share: the ports, the per-worker queues, the readings of a worker (the overlap actions too). */
  readonly shared: CrewWork;
  private readonly subscription: Disposable | undefined;

  constructor(
    tx: Transactor,
    git: GitPort,
    agents: AgentPort | undefined,
    settings: CrewSettings,
    /** With several owners: this owner's machine; only its workers (and those of any host) are launched here. */
    host?: string,
  ) {
    const shared = new CrewWork(tx, git, agents, settings, host);
    this.shared = shared;
    this.subscription = agents ? tx.onDidCommit((events) => events.forEach((event) => reactTo(shared, event))) : undefined;
  }

  /** Prepares the worktree, then moves the worker to WORKING (and launches its agent, with agents). */
  start(request: Request<'start'>): Promise<Result<ResultOf<'start'>>> {
    return this.shared.serialized(request.args.worker, () => startWorker(this.shared, request.args.worker, request));
  }

  /** Merges the branch into the base (one merge at a time), then records the merge. */
  merge(request: Request<'merge'>): Promise<Result<ResultOf<'merge'>>> {
    return this.shared.serialized(request.args.worker, () => mergeWorker(this.shared, request.args.worker, request));
  }

  cancel(request: Request<'cancel'>): Promise<Result<ResultOf<'cancel'>>> {
    const target = request.args.target;
    return this.release(this.holderOf(target), 'cancelled', () => this.shared.tx.step(request, (unit, s) => s.state.cancel(unit, target)));
  }

  reset(request: Request<'reset'>): Promise<Result<ResultOf<'reset'>>> {
    const workerId = request.args.worker;
    return this.release(workerId, 'reset', () => this.shared.tx.step(request, (unit, s) => s.state.reset(unit, workerId)));
  }

  /** A person's message to the worker's running agent (no transaction: it goes to the agent's stdin and its events file). */
  tell(request: Request<'tell'>): Promise<Result<ResultOf<'tell'>>> {
    const { worker, text } = request.args;
    const port = this.talkingTo(worker);
    if (!port.ok) return Promise.resolve(port);
    const told = port.value.tell?.(worker, text) ?? refused('noAgents', noTalkMessage);
    return Promise.resolve(told.ok ? ok({ worker, ...told.value }) : told);
  }

  /** Ends the running turn of the worker's agent; its session stays and waits for a message. */
  interrupt(request: Request<'interrupt'>): Promise<Result<ResultOf<'interrupt'>>> {
    const { worker } = request.args;
    const port = this.talkingTo(worker);
    if (!port.ok) return Promise.resolve(port);
    const interrupted = port.value.interrupt?.(worker) ?? refused('noAgents', noTalkMessage);
    return Promise.resolve(
      interrupted.ok ? ok({ worker, taskId: interrupted.value.taskId, attempt: interrupted.value.attempt }) : interrupted,
    );
  }

  /** After an owner restart: agents of WORKING workers are gone; save their work and retry. */
  recoverOrphans(): Promise<void> {
    return recoverOrphans(this.shared);
  }

  /** Another owner changed these workers (undefined: which is not known): see crewReactions.ts. */
  noteExternal(workerIds?: readonly string[]): void {
    noteExternal(this.shared, workerIds);
  }

  /** The agents of a worker this owner runs, working now. */
  private talkingTo(workerId: string): Result<AgentPort> {
    const { tx, agents } = this.shared;
    const worker = tx.read((reader) => findWorker(reader, workerId));
    if (!worker) return notFound('worker', workerId);
    if (!workerFits('talk', worker.state)) {
      return refused('notWorking', `Worker '${workerId}' is ${worker.state}; only a WORKING worker's agent takes messages.`, {
        from: worker.state,
      });
    }
    if (!agents) return refused('noAgents', noTalkMessage);
    if (!this.shared.runsHere(worker))
      return refused('otherHost', `The agent of '${workerId}' runs on ${worker.host ?? 'another machine'}; talk to it there.`);
    return ok(agents);
  }

  /**
   * Cancel and reset let go of a worker's task. Its agent is stopped and whatever the worktree holds
   * uncommitted is snapshotted (ARCHITECTURE §5) before the worker can be given anything else: the
   * whole release runs in the worker's queue, ahead of any start a new assignment queues.
   */
  private release<T>(workerId: string | undefined, reason: string, transition: () => Result<T>): Promise<Result<T>> {
    if (!workerId) return Promise.resolve(transition());
    const crew = this.shared;
    return crew.serialized(workerId, async () => {
      const worker = crew.tx.read((reader) => findWorker(reader, workerId));
      const work = worker ? crew.workOf(worker) : undefined;
      const released = transition();
      if (released.ok && work) {
        await crew.stopAgent(workerId);
        await crew.git.snapshot(work, reason);
      }
      return released;
    });
  }

  /** The worker a cancel targets: the worker itself, or the one holding that task. */
  private holderOf(target: string): string | undefined {
    return this.shared.tx.read((reader) => findWorker(reader, target)?.id ?? findWorkerIdHolding(reader, target));
  }

  dispose(): void {
    this.shared.dispose();
    this.subscription?.dispose();
  }
}

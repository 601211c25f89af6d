import type { CommandArgs, CommandName, RequestOf } from '../../../src/core/requests';
import type { TransitionEvent } from '../../../src/core/transitionLog';
import { type Result, ok } from '../../../src/core/result';
import { Emitter } from '../../../src/base/lifetime';
import type { ResultOf } from '../../../src/core/requests';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import type { ForemanSession } from '../../../src/extension/session';
import { type StatusDelta, StatusModel } from '../../../src/extension/statusModel';

/**
 * A session over a status object the test changes; it answers only the dashboard's reads, and any
 * other request fails the test (fakes are strict).
 */
export class FakeSession implements ForemanSession {
  readonly name = 'repo';
  readonly ownerNote = undefined;
  readonly restricted = false;
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  readonly requests: string[] = [];
  /** Every request as sent, for tests that check what was asked. */
  readonly sent: Array<RequestOf<CommandName>> = [];

  constructor(
    public status: StatusSnapshot,
    readonly root = '/repo',
    public transitions: TransitionEvent[] = [],
  ) {}

  /** What the views were last told, to say what changed since (as the real sessions do). */
  private readonly model = new StatusModel();

  snapshot(): StatusSnapshot {
    return this.status;
  }

  takeChanges(): StatusDelta {
    return this.model.replace(this.status);
  }

  recheckWorkers(): void {
    this.changeEmitter.fire();
  }

  change(status?: StatusSnapshot): void {
    if (status) this.status = status;
    this.changeEmitter.fire();
  }

  /** The only requests the dashboard sends; anything else fails the test. */
  private readonly answers: { readonly [C in CommandName]?: (args: CommandArgs<C>) => ResultOf<C> } = {
    // As the engine reads them: after a seq, the first (or the latest) `limit`.
    transitions: ({ afterSeq = 0, limit, latest }) => {
      const after = this.transitions.filter((event) => event.seq > afterSeq);
      return latest ? after.slice(-limit) : after.slice(0, limit);
    },
    metrics: () => ({
      transitions: [],
      timeInState: [],
      rejected: { total: 0, byCode: {} },
      idempotency: { hits: 0, keys: 0 },
      queue: {},
      throughputPerHour: 3,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      archived: {},
    }),
  };

  execute<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>> {
    const command: C = request.command;
    this.requests.push(command);
    this.sent.push(request);
    const answer = this.answers[command];
    return answer ? Promise.resolve(ok(answer(request.args))) : Promise.reject(new Error(`unexpected request ${request.command}`));
  }

  refresh(): void {
    this.changeEmitter.fire();
  }
  worktreePath(): string {
    throw new Error('unexpected worktreePath');
  }
  logFile(): string {
    throw new Error('unexpected logFile');
  }
  changedFiles(): Promise<string[]> {
    return Promise.reject(new Error('unexpected changedFiles'));
  }
  fileAt(): Promise<string> {
    return Promise.reject(new Error('unexpected fileAt'));
  }
  close(): Promise<void> {
    this.changeEmitter.dispose();
    return Promise.resolve();
  }
  dispose(): void {
    void this.close();
  }
}

import type { WorkerStatus } from '../../engine/statusView';
import type { WorkerCard } from '../../shared/protocol';
import type { StatusDelta } from '../statusModel';

/**
 * The worker cards the dashboard last built, kept until a commit names their worker or its task
 * (the ids of the one throttle's `StatusDelta`): a change rebuilds the cards it touched, not the
 * page. A card whose oldest heartbeat or state span has left the timeline's window is built again
 * too, since the window moves with the clock and not with commits.
 */
export class CardCache {
  private cards = new Map<string, WorkerCard>();

  constructor(private readonly windowMs: number) {}

  /** The cached card of `worker`, or `build`'s, which is kept. */
  card(worker: WorkerStatus, now: number, build: () => WorkerCard): WorkerCard {
    const held = this.cards.get(worker.id);
    if (held && this.current(held, now)) return held;
    const card = build();
    this.cards.set(worker.id, card);
    return card;
  }

  /** Forgets the cards a change touched: its workers, and the workers holding its tasks. */
  forget(delta: StatusDelta): void {
    if (delta.workers.size === 0 && delta.tasks.size === 0) return;
    for (const [id, card] of this.cards) {
      if (delta.workers.has(id) || (card.taskId !== null && delta.tasks.has(card.taskId))) this.cards.delete(id);
    }
  }

  clear(): void {
    this.cards = new Map();
  }

  get size(): number {
    return this.cards.size;
  }

  private current(card: WorkerCard, now: number): boolean {
    const cutoff = now - this.windowMs;
    const oldestBeat = card.heartbeatsAt[0];
    // The history keeps the last span that began before the window (the state it opens in): the second must be inside.
    const secondSpan = card.states[1];
    return (oldestBeat === undefined || oldestBeat > cutoff) && (secondSpan === undefined || secondSpan.at > cutoff);
  }
}

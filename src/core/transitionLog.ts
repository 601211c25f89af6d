import { z } from 'zod';
import { describeIssues } from './zodIssues';
import { type TaskStatus, type TaskTrigger, taskTransitions } from './taskMachine';
import { type WorkerState, type WorkerTrigger, workerTransitions } from './workerMachine';

/** One line of `transitions.jsonl`: seed 003's event schema plus Foreman's audit fields. */
export const transitionEventSchema = z.object({
  seq: z.number().int().positive(),
  timestamp: z.iso.datetime({ offset: false }),
  event_type: z.enum(['task_state_transition', 'worker_state_transition']),
  severity: z.enum(['info', 'warning', 'error', 'critical']),
  entity_id: z.string().min(1),
  from_state: z.string().min(1),
  to_state: z.string().min(1),
  trigger: z.string().min(1),
  actor: z.string().min(1),
  reason: z.string().nullable().optional(),
  attempt: z.number().int().nullable().optional(),
  request_id: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type TransitionEvent = z.infer<typeof transitionEventSchema>;

/** Severity by destination, as seed 003 grades them. */
export function severityOf(to: string): TransitionEvent['severity'] {
  if (to === 'FAILED' || to === 'failed') return 'error';
  if (to === 'STALE' || to === 'cancelled') return 'warning';
  return 'info';
}

export interface ValidationReport {
  readonly ok: boolean;
  readonly count: number;
  /** The first problems found (at most `keptErrors`), in the order of their lines. */
  readonly errors: Array<{ line: number; message: string }>;
  /** Problems found beyond those listed, when there were more than `keptErrors`. */
  readonly moreErrors?: number;
}

/** A trail broken throughout would otherwise hold one message per line of months of history. */
export const keptErrors = 1_000;

/**
 * Checks an exported transitions log (seed 003 "Validation"): every line matches the schema,
 * every transition is legal in its machine, each entity continues from where it was, and
 * timestamps and sequence numbers never go backwards.
 */
export function validateTransitionLog(text: string): ValidationReport {
  const checker = new TransitionLogChecker();
  for (const raw of text.split('\n')) checker.check(raw);
  return checker.report();
}

/**
 * `validateTransitionLog` a line at a time, for a trail too long to hold as one text (months of
 * archive): it keeps only each entity's last state, the last seq and time, and the problems found.
 */
export class TransitionLogChecker {
  private readonly errors: Array<{ line: number; message: string }> = [];
  /**
   * Each entity's last state, keyed `t:<id>` or `w:<id>`: a million tasks' entries are most of
   * what a check of months of history holds, so the key is short and the state one shared string.
   */
  private readonly lastState = new Map<string, string>();
  private readonly states = new Map<string, string>();
  private moreErrors = 0;
  private lastTime = -Infinity;
  private lastSeq = 0;
  /** The store the first line that named one belongs to. */
  private store: string | undefined;
  private count = 0;
  private line = 0;

  /** Checks the next line (a blank one is skipped, but counted as a line). */
  check(raw: string): void {
    if (raw.trim() === '') {
      this.line++;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      this.problem({ line: ++this.line, message: 'not valid JSON' });
      return;
    }
    this.checkParsed(json);
  }

  /** Checks the next line, already parsed from JSON by the caller (a merge that compared it). */
  checkParsed(json: unknown): void {
    const line = ++this.line;
    this.checkStore(line, json);
    const parsed = transitionEventSchema.safeParse(json);
    if (!parsed.success) {
      this.problem({ line, message: describeIssues(parsed.error, 'event') });
      return;
    }
    this.count++;
    const event = parsed.data;
    const time = Date.parse(event.timestamp);
    if (time < this.lastTime) this.problem({ line, message: `timestamp ${event.timestamp} goes back in time` });
    if (event.seq <= this.lastSeq) this.problem({ line, message: `seq ${event.seq} is not after ${this.lastSeq}` });
    this.lastTime = Math.max(this.lastTime, time);
    this.lastSeq = Math.max(this.lastSeq, event.seq);
    const legal = legalTarget(event);
    if (legal !== event.to_state) {
      this.problem({
        line,
        message: `${event.entity_id}: ${event.from_state} --${event.trigger}--> ${event.to_state} is not a legal transition`,
      });
    }
    const key = `${event.event_type === 'task_state_transition' ? 't' : 'w'}:${event.entity_id}`;
    const previous = this.lastState.get(key);
    if (previous !== undefined && previous !== event.from_state) {
      this.problem({ line, message: `${event.entity_id}: starts from ${event.from_state} but its last state was ${previous}` });
    }
    this.lastState.set(key, this.shared(event.to_state));
  }

  /**
   * Export lines name their store (issue 28): one log holds one store's lines. A line of another
   * store is a problem (two stores' exports in one file); lines that name none are older, and pass.
   */
  private checkStore(line: number, json: unknown): void {
    const store = typeof json === 'object' && json !== null ? (json as { store?: unknown }).store : undefined;
    if (typeof store !== 'string') return;
    if (this.store === undefined) this.store = store;
    else if (store !== this.store)
      this.problem({ line, message: `this line is store ${store}'s, the lines before it store ${this.store}'s` });
  }

  private problem(error: { line: number; message: string }): void {
    if (this.errors.length < keptErrors) this.errors.push(error);
    else this.moreErrors++;
  }

  /** One string per state name, however many lines spelled it. */
  private shared(state: string): string {
    const known = this.states.get(state);
    if (known !== undefined) return known;
    this.states.set(state, state);
    return state;
  }

  /** Transitions checked so far (lines that parsed as one). */
  get checked(): number {
    return this.count;
  }

  report(): ValidationReport {
    const more = this.moreErrors > 0 ? { moreErrors: this.moreErrors } : {};
    return { ok: this.errors.length === 0, count: this.count, errors: [...this.errors], ...more };
  }
}

function legalTarget(event: TransitionEvent): string | undefined {
  if (event.event_type === 'worker_state_transition') {
    return workerTransitions[event.from_state as WorkerState]?.[event.trigger as WorkerTrigger];
  }
  return taskTransitions[event.from_state as TaskStatus]?.[event.trigger as TaskTrigger];
}

import { z } from 'zod';
import { taskIdSchema, workerIdSchema } from '../../core/ids';
import type { Localizer } from '../localizer';
import { isRepositoryPath, noteLimit } from './reviewNote';

/** Where a thread stands: being written, sent to the agent, or answered by the agent's next attempt. */
export const ThreadStatus = { open: 'open', sent: 'sent', resolved: 'resolved' } as const;
export type ThreadStatus = (typeof ThreadStatus)[keyof typeof ThreadStatus];

const lineSchema = z.number().int().min(1);
/** A file's text kept when its comments are sent is at most this long; a longer file keeps only the quoted lines. */
export const baselineLimit = 256 * 1024;

const threadSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]{1,64}$/),
    file: z.string().refine(isRepositoryPath, 'a path inside the repository'),
    startLine: lineSchema,
    endLine: lineSchema,
    comments: z.array(z.string().min(1).max(noteLimit)).min(1).max(200),
    status: z.enum([ThreadStatus.open, ThreadStatus.sent, ThreadStatus.resolved]),
    /** When it was sent (ms since the epoch): the next submission after it is the attempt that answers it. */
    sentAt: z.number().int().min(0).optional(),
    /** The commented lines as sent, for a file too long to keep whole. */
    sentCode: z.array(z.string()).optional(),
  })
  .refine((thread) => thread.endLine >= thread.startLine, 'a thread ends at or after its first line');

const taskReviewSchema = z.object({
  /** The workspace folder (the session's root). */
  root: z.string().min(1),
  taskId: taskIdSchema,
  workerId: workerIdSchema,
  /** The worker's worktree: the files commented are its files. */
  worktree: z.string().min(1),
  threads: z.array(threadSchema),
  /** File (repository path) → its text when its comments were sent; what the next attempt is compared with. */
  baselines: z.record(z.string(), z.string().max(baselineLimit)),
});

const storedSchema = z.object({ version: z.literal(1), reviews: z.array(taskReviewSchema) });

export type ReviewThread = z.infer<typeof threadSchema>;
export type TaskReview = z.infer<typeof taskReviewSchema>;

/** VS Code's `workspaceState` as far as the store uses it. */
export interface ReviewMemento {
  get(key: string): unknown;
  update(key: string, value: unknown): Thenable<void>;
}

export const reviewStateKey = 'foreman.reviewComments';

/**
 * The review comments of every task, kept in the window's workspace state so a reload keeps them.
 * What is read back is checked: a record this version cannot read is dropped with a warning,
 * never half-used.
 */
export class ReviewStore {
  constructor(
    private readonly memento: ReviewMemento,
    private readonly warn: (message: string) => void,
  ) {}

  load(): TaskReview[] {
    const stored = this.memento.get(reviewStateKey);
    if (stored === undefined) return [];
    const parsed = storedSchema.safeParse(stored);
    if (parsed.success) return parsed.data.reviews;
    const issue = parsed.error.issues[0];
    this.warn(
      `The saved review comments could not be read (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}); they were dropped.`,
    );
    return [];
  }

  save(reviews: readonly TaskReview[]): Thenable<void> {
    const kept = reviews.filter((review) => review.threads.length > 0);
    return this.memento.update(reviewStateKey, { version: 1, reviews: kept });
  }
}

/** What a thread's title says of where it stands. */
export function threadLabel(thread: ReviewThread, workerId: string, l10n: Localizer): string {
  switch (thread.status) {
    case ThreadStatus.open:
      return thread.sentAt === undefined ? l10n.t('Not sent yet') : l10n.t('Still open: the next attempt left these lines alone');
    case ThreadStatus.sent:
      return l10n.t('Sent to {0}: waiting for its next attempt', workerId);
    case ThreadStatus.resolved:
      return l10n.t('Resolved: the next attempt changed these lines');
  }
}

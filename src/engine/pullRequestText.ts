import { z } from 'zod';
import type { CheckInfo, PullRequestInfo } from './forge';
import type { TaskRow, WorkerRow } from './rows';

/** What a pull request says and what its checks tell the agent (docs/handoff.md). */

/** Log tails are for reading, not archiving: the last lines, bounded. */
const tailLines = 40;
const tailChars = 3000;

const checkSchema = z.object({ name: z.string(), logTail: z.string().optional(), url: z.string().optional() });

/** The checks last read on a pull request, as stored in `tasks.pr_checks` and shown by `status --json`. */
export const pullRequestChecksSchema = z.object({
  /** The commit they ran on. */
  sha: z.string(),
  state: z.enum(['none', 'pending', 'success', 'failure']),
  failed: z.array(checkSchema),
  /** The commit whose failures were sent to the agent already. */
  sentFor: z.string().optional(),
  /** Line comments people left on the pull request that are not sent to the agent yet. */
  comments: z.number().int().min(0).optional(),
  /** The forge's ids of the comments sent to the agent already: each is sent once. */
  sentComments: z.array(z.string()).optional(),
  /** The base branch the pull request conflicts with, while the forge says it does. */
  conflict: z.string().optional(),
  /** The commit whose conflict was sent to the agent already. */
  conflictSentFor: z.string().optional(),
});
export type PullRequestChecks = z.infer<typeof pullRequestChecksSchema>;

/** The stored checks, or undefined when none were read (or the column holds something else). */
export function readChecks(json: string | null): PullRequestChecks | undefined {
  if (!json) return undefined;
  try {
    const parsed = pullRequestChecksSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** One state for all the checks of a commit: any failure fails it, any pending keeps it pending. */
export function summarizeChecks(checks: readonly CheckInfo[], sha: string): Omit<PullRequestChecks, 'sentFor'> {
  const failed = checks
    .filter((check) => check.state === 'failure')
    .map((check) => ({
      name: check.name,
      ...(check.logTail ? { logTail: tail(check.logTail) } : {}),
      ...(check.url ? { url: check.url } : {}),
    }));
  const state =
    failed.length > 0 ? 'failure' : checks.some((check) => check.state === 'pending') ? 'pending' : checks.length ? 'success' : 'none';
  return { sha, state, failed };
}

/** The pull request's body: the agent's summary, the task's prompt, and the commit trailers that tie it to Foreman. */
export function pullRequestBody(task: TaskRow, worker: WorkerRow): string {
  const summary = (worker.summary ?? '').trim() || '_The agent left no summary._';
  const prompt = task.prompt.trim() ? quoted(task.prompt.trim()) : '_No prompt: the title is the task._';
  return [
    summary,
    '',
    '### Task',
    '',
    prompt,
    '',
    '---',
    `Foreman-Task: ${task.id}`,
    `Foreman-Worker: ${worker.id}`,
    `Foreman-Attempt: ${worker.attempt}`,
  ].join('\n');
}

/**
 * The follow-up a failed check or a conflict with the base sends to the agent's session: which jobs
 * failed and the end of their logs; the base branch it conflicts with and how to resolve it.
 */
export function failureNote(pull: PullRequestInfo, failed: PullRequestChecks['failed'], conflict?: string): string {
  const conflicted = conflict
    ? [
        `Pull request #${pull.number} (${pull.url}) conflicts with its base branch ${conflict}: it cannot be merged as it is.`,
        `Merge the latest ${conflict} from the remote into this branch (do not rebase: the pull request takes only fast-forward pushes), resolve the conflicts, and commit.`,
      ]
    : [];
  if (failed.length === 0) return conflicted.join('\n\n');
  const jobs = failed.map((check) =>
    [
      `Check "${check.name}" failed${check.url ? ` (${check.url})` : ''}.`,
      check.logTail ? `Its log ends with:\n${fence(check.logTail)}` : 'It left no log.',
    ].join('\n'),
  );
  return [
    `A check failed on pull request #${pull.number} (${pull.url}) at commit ${pull.headSha.slice(0, 12)}.`,
    ...jobs,
    ...conflicted,
    'Fix the cause on this branch and commit; the pull request gets your commits once the task is approved again.',
  ]
    .join('\n\n')
    .slice(0, 9000);
}

function tail(text: string): string {
  const lines = text.trimEnd().split(/\r?\n/).slice(-tailLines).join('\n');
  return lines.length > tailChars ? lines.slice(-tailChars) : lines;
}

function quoted(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => `> ${line}`)
    .join('\n');
}

function fence(text: string): string {
  return ['```', text.replace(/```/g, "'''"), '```'].join('\n');
}

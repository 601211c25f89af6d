/**
 * The forge as the hand-off needs it (docs/handoff.md): a pull request per approved task, what the
 * forge says of it, and its checks. Implemented in src/infra/forge for GitHub (@octokit/rest) and
 * GitLab (merge requests, REST API v4); every failure is a Result whose message says what to do (a token missing, wrong or short of scope).
 */
import type { Result } from '../core/result';
import type { WorkRef } from './ports';

/** The forges Foreman opens pull (GitHub) or merge (GitLab) requests on. */
export type ForgeKind = 'github' | 'gitlab';

/** Where a pull request stands on the forge. */
export type PullRequestState = 'open' | 'merged' | 'closed';

export interface PullRequestInfo {
  readonly number: number;
  readonly url: string;
  readonly state: PullRequestState;
  /** The branch it would merge into. */
  readonly base: string;
  /** The commit its checks run on. */
  readonly headSha: string;
  /** The forge says it conflicts with its base (GitHub `mergeable: false`, GitLab `has_conflicts`). */
  readonly conflict?: boolean;
}

/** A comment a person left on a line (or lines) of the pull request's diff. */
export interface ReviewCommentInfo {
  /** The forge's id of the comment, kept once it is sent so it is sent once. */
  readonly id: string;
  /** The file's path in the repository. */
  readonly file: string;
  /** First and last line (1-based) in the new version of the file; absent for a comment on the whole file. */
  readonly startLine?: number;
  readonly endLine?: number;
  readonly body: string;
  readonly author: string;
  readonly url?: string;
}

export interface PullRequestDraft {
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly body: string;
}

/** One check run or commit status, as far as a person or an agent needs it. */
export interface CheckInfo {
  readonly name: string;
  readonly state: 'pending' | 'success' | 'failure';
  /** For a failure: the end of its output (a check run's text or summary, a status's description). */
  readonly logTail?: string;
  readonly url?: string;
}

export interface ForgePort {
  /** Which forge, for messages ("GitHub", "GitLab"). */
  readonly name: string;
  /** Pushes the task's branch to the forge's remote (a fast-forward, never forced). */
  push(work: WorkRef): Promise<Result<void>>;
  open(draft: PullRequestDraft): Promise<Result<PullRequestInfo>>;
  get(number: number): Promise<Result<PullRequestInfo>>;
  /** Points an open pull request at another base (a stacked one whose base was merged). */
  retarget(number: number, base: string): Promise<Result<void>>;
  /**
   * The checks of a pull request's head commit (`pull.headSha`): GitHub's check runs and commit
   * statuses, or the jobs of GitLab's latest pipeline of the merge request for that commit.
   */
  checks(pull: PullRequestInfo): Promise<Result<CheckInfo[]>>;
  /**
   * The line comments people left on the pull request: GitHub's review comments, GitLab's diff
   * notes of the merge request's discussions. Oldest first.
   */
  comments(pull: PullRequestInfo): Promise<Result<ReviewCommentInfo[]>>;
}

/** The workspace's `handoff` and what goes with it, from the composition root. */
export interface HandoffSettings {
  readonly mode: 'local-merge' | 'pull-request';
  /** How often open pull requests are read back (their state and checks). */
  readonly pollMs: number;
  /** How many check failures per task are sent to the agent by themselves (0: none; a person sends them). */
  readonly autoFixChecks: number;
}

export const defaultHandoff: HandoffSettings = { mode: 'local-merge', pollMs: 30_000, autoFixChecks: 0 };

import type { CardPullRequest } from './dashboardSnapshot';

/**
 * A task's pull request in a few words (docs/handoff.md), wherever it is shown: `foreman status`,
 * the Workers and Queue trees, the dashboard's cards. "PR #12 (checks failed, conflicts with main,
 * 2 comments)"; a merged or closed one says so.
 */
export interface PullRequestWords {
  readonly number: number;
  readonly state: string;
  readonly checks?: { readonly state: string };
  /** Comments on it not sent to the agent yet. */
  readonly comments?: number;
  /** The base branch it conflicts with. */
  readonly conflict?: string;
}

export function pullRequestBadge(pull: PullRequestWords | CardPullRequest): string {
  if (pull.state !== 'open') return `PR #${pull.number} ${pull.state}`;
  const checks = typeof pull.checks === 'string' ? pull.checks : pull.checks?.state;
  const said = [
    checks && checks !== 'none' ? `checks ${checks === 'failure' ? 'failed' : checks}` : '',
    pull.conflict ? `conflicts with ${pull.conflict}` : '',
    pull.comments ? (pull.comments === 1 ? '1 comment' : `${pull.comments} comments`) : '',
  ].filter(Boolean);
  return `PR #${pull.number}${said.length ? ` (${said.join(', ')})` : ''}`;
}

/** A worker card's pull request badge; an address that is not http(s) is not sent to be linked. */
export function cardPullRequest(pull: (PullRequestWords & { readonly url: string }) | undefined): { pullRequest?: CardPullRequest } {
  if (!pull || !/^https?:\/\//.test(pull.url)) return {};
  const { number, url, state, checks, comments, conflict } = pull;
  return {
    pullRequest: {
      number,
      url,
      state,
      ...(checks ? { checks: checks.state } : {}),
      ...(comments !== undefined ? { comments } : {}),
      ...(conflict ? { conflict } : {}),
    },
  };
}

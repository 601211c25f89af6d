/**
 * The GitHub forge (docs/handoff.md) through @octokit/rest: the pull request and check endpoints
 * of GitHub's documented REST API, on github.com or a GitHub Enterprise server (`forge.apiUrl`).
 * Branches are pushed with git (a fast-forward, never forced). Every failure is a refusal whose
 * message says what to do; none ever holds the token.
 */
import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import { type Failure, type Result, ok, refused } from '../../core/result';
import type { CheckInfo, ForgePort, PullRequestDraft, PullRequestInfo, ReviewCommentInfo } from '../../engine/forge';
import type { WorkRef } from '../../engine/ports';
import { openGit } from '../git/gitClient';
import { pushFastForward } from '../git/remote';
import type { TokenSource } from './credentials';
import { type ForgeRepository, parseRepository, repositoryOfRemoteUrl } from './repository';

export interface GitHubForgeOptions {
  readonly repoRoot: string;
  /** The git remote branches are pushed to. */
  readonly remote: string;
  /** owner/name; default: read from the remote's URL. */
  readonly repository?: string;
  /** The REST API's base URL; default https://api.github.com. */
  readonly apiUrl?: string;
  readonly token: TokenSource;
  readonly log: (line: string) => void;
}

interface Client {
  readonly octokit: Octokit;
  readonly owner: string;
  readonly repo: string;
}

/** GET /repos/{o}/{r}/pulls/{n}: the fields Foreman reads, checked before use. */
const pullSchema = z.object({
  number: z.number().int().positive(),
  html_url: z.string(),
  state: z.string(),
  merged: z.boolean().nullish(),
  mergeable: z.boolean().nullish(),
  mergeable_state: z.string().nullish(),
  base: z.object({ ref: z.string() }),
  head: z.object({ sha: z.string() }),
});

/** GET /repos/{o}/{r}/pulls/{n}/comments. */
const reviewCommentsSchema = z.array(
  z.object({
    id: z.number().int(),
    path: z.string(),
    line: z.number().int().positive().nullish(),
    start_line: z.number().int().positive().nullish(),
    original_line: z.number().int().positive().nullish(),
    original_start_line: z.number().int().positive().nullish(),
    body: z.string(),
    user: z.object({ login: z.string() }).nullish(),
    html_url: z.string().optional(),
  }),
);

/** Conclusions of a completed check run that fail it. */
const failing = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure']);

export class GitHubForge implements ForgePort {
  readonly name = 'GitHub';
  private repository: ForgeRepository | undefined;

  constructor(private readonly options: GitHubForgeOptions) {}

  push(work: WorkRef): Promise<Result<void>> {
    return pushFastForward(this.options.repoRoot, this.options.remote, `refs/heads/${work.branch}`, work.branch);
  }

  async open(draft: PullRequestDraft): Promise<Result<PullRequestInfo>> {
    const created = await this.call(`opening a pull request for ${draft.head}`, async ({ octokit, owner, repo }) => {
      const { data } = await octokit.pulls.create({
        owner,
        repo,
        head: draft.head,
        base: draft.base,
        title: draft.title,
        body: draft.body,
      });
      return data.number;
    });
    if (created.ok) return this.get(created.value);
    // An earlier approval opened it and was not recorded (an owner that stopped between): take it up.
    if (created.details?.['status'] !== 422) return created;
    const listed = await this.call(`looking for the open pull request of ${draft.head}`, async ({ octokit, owner, repo }) => {
      const { data } = await octokit.pulls.list({ owner, repo, state: 'open', head: `${owner}:${draft.head}` });
      return data[0]?.number;
    });
    if (!listed.ok) return listed;
    return listed.value === undefined ? created : this.get(listed.value);
  }

  get(number: number): Promise<Result<PullRequestInfo>> {
    return this.call(`reading pull request #${number}`, async ({ octokit, owner, repo }) => {
      const { data } = await octokit.pulls.get({ owner, repo, pull_number: number });
      const pull = pullSchema.parse(data);
      const state = pull.merged ? 'merged' : pull.state === 'closed' ? 'closed' : 'open';
      // `mergeable` is null while GitHub still computes it: no conflict known yet.
      const conflict = state === 'open' && (pull.mergeable === false || pull.mergeable_state === 'dirty');
      return { number: pull.number, url: pull.html_url, state, base: pull.base.ref, headSha: pull.head.sha, conflict } as const;
    });
  }

  retarget(number: number, base: string): Promise<Result<void>> {
    return this.call(`retargeting pull request #${number} to ${base}`, async ({ octokit, owner, repo }) => {
      await octokit.pulls.update({ owner, repo, pull_number: number, base });
    });
  }

  checks(pull: PullRequestInfo): Promise<Result<CheckInfo[]>> {
    const sha = pull.headSha;
    return this.call(`reading the checks of ${sha.slice(0, 12)}`, async (client) => {
      const { octokit, owner, repo } = client;
      const runs = (await octokit.checks.listForRef({ owner, repo, ref: sha, per_page: 100 })).data.check_runs;
      const statuses = (await octokit.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100 })).data.statuses;
      const checks: CheckInfo[] = [];
      for (const run of runs) {
        const state = run.status !== 'completed' ? 'pending' : failing.has(run.conclusion ?? '') ? 'failure' : 'success';
        const output = [run.output.title, run.output.summary, run.output.text].filter(Boolean).join('\n');
        const logTail = state === 'failure' ? ((await this.actionsLog(client, run.id, run.app?.slug)) ?? output) : undefined;
        checks.push({ name: run.name, state, ...(logTail ? { logTail } : {}), ...(run.html_url ? { url: run.html_url } : {}) });
      }
      for (const status of statuses) {
        const state =
          status.state === 'failure' || status.state === 'error' ? 'failure' : status.state === 'pending' ? 'pending' : 'success';
        checks.push({
          name: status.context,
          state,
          ...(status.description ? { logTail: status.description } : {}),
          ...(status.target_url ? { url: status.target_url } : {}),
        });
      }
      return checks;
    });
  }

  /** GET /repos/{o}/{r}/pulls/{n}/comments: the review comments on the diff's lines, oldest first. */
  comments(pull: PullRequestInfo): Promise<Result<ReviewCommentInfo[]>> {
    return this.call(`reading the review comments of pull request #${pull.number}`, async ({ octokit, owner, repo }) => {
      const { data } = await octokit.pulls.listReviewComments({ owner, repo, pull_number: pull.number, per_page: 100 });
      return reviewCommentsSchema.parse(data).map((comment) => {
        // An outdated comment keeps the line it was written on.
        const end = comment.line ?? comment.original_line ?? undefined;
        const start = (end === undefined ? undefined : (comment.start_line ?? comment.original_start_line)) ?? end;
        return {
          id: String(comment.id),
          file: comment.path,
          ...(start !== undefined && end !== undefined ? { startLine: Math.min(start, end), endLine: end } : {}),
          body: comment.body,
          author: comment.user?.login ?? 'someone',
          ...(comment.html_url ? { url: comment.html_url } : {}),
        };
      });
    });
  }

  /** A GitHub Actions job's own log (its check run id is the job's id); undefined when it cannot be had. */
  private async actionsLog({ octokit, owner, repo }: Client, jobId: number, app: string | undefined): Promise<string | undefined> {
    if (app !== 'github-actions') return undefined;
    try {
      const { data } = await octokit.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: jobId });
      return typeof data === 'string' ? data : undefined;
    } catch {
      return undefined;
    }
  }

  private async call<T>(what: string, work: (client: Client) => Promise<T>): Promise<Result<T>> {
    const token = await this.options.token({ forge: 'github', apiUrl: this.options.apiUrl ?? 'https://api.github.com' });
    if (!token.ok) return token;
    const repository = await this.repositoryOf();
    if (!repository.ok) return repository;
    const { owner, repo } = repository.value;
    const octokit = new Octokit({
      auth: token.value,
      userAgent: 'foreman',
      ...(this.options.apiUrl ? { baseUrl: this.options.apiUrl.replace(/\/$/, '') } : {}),
      // Octokit's own warnings go to Foreman's log, its debug chatter nowhere.
      log: {
        debug: () => undefined,
        info: () => undefined,
        warn: (line: string) => this.options.log(`github: ${line}`),
        error: () => undefined,
      },
    });
    try {
      return ok(await work({ octokit, owner, repo }));
    } catch (error) {
      return refusalOf(error, what, `${owner}/${repo}`, this.options.apiUrl ?? 'https://api.github.com');
    }
  }

  private async repositoryOf(): Promise<Result<ForgeRepository>> {
    if (this.repository) return ok(this.repository);
    let parsed: Result<ForgeRepository>;
    if (this.options.repository) parsed = parseRepository(this.options.repository);
    else {
      const url = await openGit(this.options.repoRoot)
        .raw(['remote', 'get-url', '--', this.options.remote])
        .catch(() => undefined);
      if (url === undefined)
        return refused('unknownRemote', `The repository has no remote '${this.options.remote}'; add it or set forge.remote.`);
      parsed = repositoryOfRemoteUrl(url);
    }
    if (parsed.ok) this.repository = parsed.value;
    return parsed;
  }
}

/** What GitHub's answer means for a person, by status; the token is never part of it. */
function refusalOf(error: unknown, what: string, repository: string, apiUrl: string): Failure {
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return refused(
      'forgeFailed',
      `GitHub's answer while ${what} on ${repository} is not what its REST API documents (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'unexpected'}); check forge.apiUrl.`,
      { repository },
    );
  }
  const status = typeof error === 'object' && error !== null && 'status' in error ? Number(error.status) : undefined;
  const said = error instanceof Error ? error.message.split(' - ')[0]?.slice(0, 300) : String(error);
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } } | undefined)?.response?.headers ?? {};
  const details = { status, repository };
  switch (status) {
    case 401:
      return refused(
        'forgeUnauthorized',
        `GitHub refused the token while ${what} (401: ${said}): it is wrong or expired. Set a valid GITHUB_TOKEN or GH_TOKEN, or run \`gh auth login\`.`,
        details,
      );
    case 403: {
      const scopes =
        headers['x-oauth-scopes'] !== undefined
          ? ` The token's scopes: '${headers['x-oauth-scopes']}'; needed: '${headers['x-accepted-oauth-scopes'] ?? 'repo'}'.`
          : '';
      return refused(
        'forgeForbidden',
        `GitHub refused ${what} on ${repository} (403: ${said}): the token lacks the \`repo\` scope (classic) or Pull requests and Contents write access (fine-grained).${scopes}`,
        details,
      );
    }
    case 404:
      return refused(
        'forgeNotFound',
        `GitHub found nothing while ${what} on ${repository} (404: ${said}): check forge.repository, and that the token may see the repository (a private one needs the \`repo\` scope).`,
        details,
      );
    case 422:
      return refused('forgeRefused', `GitHub refused ${what} on ${repository} (422: ${said}).`, details);
    case undefined:
      return refused('forgeUnreachable', `Could not reach GitHub at ${apiUrl} while ${what}: ${said}.`, details);
    default:
      return refused('forgeFailed', `GitHub answered ${status} while ${what} on ${repository}: ${said}.`, details);
  }
}

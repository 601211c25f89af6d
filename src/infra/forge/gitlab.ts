/**
 * The GitLab forge (docs/handoff.md): merge requests and their pipelines through GitLab's REST API
 * v4 (gitlab.com or a self-managed server, `forge.apiUrl`), with `fetch` and zod (gitlabApi.ts).
 * A merge request is the engine's pull request; its number is the MR's iid (`!12`). Branches are
 * pushed with git (a fast-forward, never forced). Every failure is a refusal whose message says
 * what to do; none ever holds the token.
 */
import { z } from 'zod';
import { type Failure, type Result, ok, refused } from '../../core/result';
import type { CheckInfo, ForgePort, PullRequestDraft, PullRequestInfo, PullRequestState, ReviewCommentInfo } from '../../engine/forge';
import type { WorkRef } from '../../engine/ports';
import { pushFastForward } from '../git/remote';
import type { TokenSource } from './credentials';
import {
  GitLabApi,
  GitLabError,
  type Discussion,
  type Job,
  type MergeRequest,
  discussionSchema,
  jobSchema,
  mergeRequestSchema,
  pipelineSchema,
  plainTrace,
} from './gitlabApi';

export interface GitLabForgeOptions {
  readonly repoRoot: string;
  /** The git remote branches are pushed to. */
  readonly remote: string;
  /** The project's full path, `group/…/project`. */
  readonly project: string;
  /** The REST API's base URL, e.g. https://gitlab.com/api/v4. */
  readonly apiUrl: string;
  readonly token: TokenSource;
}

/** Job states that are still to come or under way; everything else has an outcome. */
const unfinished = new Set(['created', 'pending', 'running', 'preparing', 'waiting_for_resource', 'scheduled']);

export class GitLabForge implements ForgePort {
  readonly name = 'GitLab';
  /** `:id` in every project endpoint: the full path, URL-encoded (`group%2Fsub%2Fapp`). */
  private readonly projectId: string;

  constructor(private readonly options: GitLabForgeOptions) {
    this.projectId = `/projects/${encodeURIComponent(options.project)}`;
  }

  push(work: WorkRef): Promise<Result<void>> {
    return pushFastForward(this.options.repoRoot, this.options.remote, `refs/heads/${work.branch}`, work.branch);
  }

  async open(draft: PullRequestDraft): Promise<Result<PullRequestInfo>> {
    const created = await this.call(`opening a merge request for ${draft.head}`, (api) =>
      api.json('POST', `${this.projectId}/merge_requests`, mergeRequestSchema, {
        source_branch: draft.head,
        target_branch: draft.base,
        title: draft.title,
        description: draft.body,
      }),
    );
    if (created.ok) return ok(infoOf(created.value));
    // An earlier approval opened it and was not recorded (an owner that stopped between): take it up.
    if (created.details?.['status'] !== 409) return created;
    const query = new URLSearchParams({ source_branch: draft.head, state: 'opened' });
    const listed = await this.call(`looking for the open merge request of ${draft.head}`, (api) =>
      api.json('GET', `${this.projectId}/merge_requests?${query.toString()}`, z.array(mergeRequestSchema)),
    );
    if (!listed.ok) return listed;
    const existing = listed.value[0];
    return existing ? ok(infoOf(existing)) : created;
  }

  async get(number: number): Promise<Result<PullRequestInfo>> {
    const read = await this.call(`reading merge request !${number}`, (api) =>
      api.json('GET', `${this.projectId}/merge_requests/${number}`, mergeRequestSchema),
    );
    return read.ok ? ok(infoOf(read.value)) : read;
  }

  async retarget(number: number, base: string): Promise<Result<void>> {
    const moved = await this.call(`retargeting merge request !${number} to ${base}`, (api) =>
      api.json('PUT', `${this.projectId}/merge_requests/${number}`, mergeRequestSchema, { target_branch: base }),
    );
    return moved.ok ? ok(undefined) : moved;
  }

  /**
   * The jobs of the merge request's newest pipeline for its head commit; a failed job carries the
   * end of its log. No pipeline yet: no checks. A pipeline without jobs counts as one check.
   */
  checks(pull: PullRequestInfo): Promise<Result<CheckInfo[]>> {
    return this.call(`reading the pipelines of merge request !${pull.number}`, async (api) => {
      const pipelines = await api.json('GET', `${this.projectId}/merge_requests/${pull.number}/pipelines`, z.array(pipelineSchema));
      const newest = pipelines.filter((pipeline) => pipeline.sha === pull.headSha).sort((a, b) => b.id - a.id)[0];
      if (!newest) return [];
      const jobs = await api.json('GET', `${this.projectId}/pipelines/${newest.id}/jobs?per_page=100`, z.array(jobSchema));
      if (jobs.length === 0) {
        const state = stateOf(newest.status, false);
        return [{ name: `pipeline #${newest.id}`, state, ...(newest.web_url ? { url: newest.web_url } : {}) }];
      }
      const checks: CheckInfo[] = [];
      for (const job of jobs) checks.push(await this.checkOf(api, job));
      return checks;
    });
  }

  /** The diff notes of the merge request's discussions (a reply keeps its thread's place); system notes are not people's. */
  comments(pull: PullRequestInfo): Promise<Result<ReviewCommentInfo[]>> {
    return this.call(`reading the discussions of merge request !${pull.number}`, async (api) => {
      const path = `${this.projectId}/merge_requests/${pull.number}/discussions?per_page=100`;
      const discussions = await api.json('GET', path, z.array(discussionSchema));
      return discussions.flatMap(diffNotesOf);
    });
  }

  private async checkOf(api: GitLabApi, job: Job): Promise<CheckInfo> {
    const state = stateOf(job.status, job.allow_failure ?? false);
    const url = job.web_url ? { url: job.web_url } : {};
    if (state !== 'failure') return { name: job.name, state, ...url };
    // A log that cannot be had still leaves the failure and the job's name.
    const trace = await api.text(`${this.projectId}/jobs/${job.id}/trace`).catch(() => '');
    const logTail = plainTrace(trace).trim() || `job ${job.status}`;
    return { name: job.name, state, logTail, ...url };
  }

  private async call<T>(what: string, work: (api: GitLabApi) => Promise<T>): Promise<Result<T>> {
    const token = await this.options.token({ forge: 'gitlab', apiUrl: this.options.apiUrl });
    if (!token.ok) return token;
    try {
      return ok(await work(new GitLabApi(this.options.apiUrl, token.value)));
    } catch (error) {
      if (!(error instanceof GitLabError)) throw error;
      return refusalOf(error, what, this.options.project, this.options.apiUrl);
    }
  }
}

function infoOf(request: MergeRequest): PullRequestInfo {
  const state: PullRequestState = request.state === 'merged' ? 'merged' : request.state === 'closed' ? 'closed' : 'open';
  const conflict =
    state === 'open' &&
    (request.has_conflicts === true || request.merge_status === 'cannot_be_merged' || request.detailed_merge_status === 'conflict');
  return { number: request.iid, url: request.web_url, state, base: request.target_branch, headSha: request.sha ?? '', conflict };
}

/** A discussion's diff notes as line comments: the place is the note's own, else its thread's first note's. */
function diffNotesOf(discussion: Discussion): ReviewCommentInfo[] {
  const anchor = discussion.notes.find((note) => note.position)?.position;
  if (!anchor) return [];
  return discussion.notes
    .filter((note) => !note.system && note.body.trim())
    .map((note) => {
      const position = note.position ?? anchor;
      const end = position.new_line ?? position.old_line ?? undefined;
      const start = (end === undefined ? undefined : position.line_range?.start?.new_line) ?? end;
      return {
        id: `${discussion.id}:${note.id}`,
        file: position.new_path ?? position.old_path ?? '',
        ...(start !== undefined && end !== undefined ? { startLine: Math.min(start, end), endLine: end } : {}),
        body: note.body,
        author: note.author?.username ?? 'someone',
      };
    })
    .filter((comment) => comment.file !== '');
}

/** A job's (or pipeline's) status as a check: a failure that is allowed to fail does not fail it. */
function stateOf(status: string, allowFailure: boolean): CheckInfo['state'] {
  if (status === 'failed') return allowFailure ? 'success' : 'failure';
  if (status === 'canceled') return 'failure';
  return unfinished.has(status) ? 'pending' : 'success';
}

/** What GitLab's answer means for a person, by status; the token is never part of it. */
function refusalOf(error: GitLabError, what: string, project: string, apiUrl: string): Failure {
  const { status } = error;
  const said = error.message;
  const details = { status, repository: project };
  switch (status) {
    case 401:
      return refused(
        'forgeUnauthorized',
        `GitLab refused the token while ${what} (401: ${said}): it is wrong, expired or revoked. Set GITLAB_TOKEN to a valid personal access token with the \`api\` scope (in VS Code: Foreman: Set GitLab Token).`,
        details,
      );
    case 403:
      return refused(
        'forgeForbidden',
        `GitLab refused ${what} on ${project} (403: ${said}): the token lacks the \`api\` scope (\`read_api\` is not enough), or its user lacks Developer access to the project.`,
        details,
      );
    case 404:
      return refused(
        'forgeNotFound',
        `GitLab found nothing while ${what} on ${project} (404: ${said}): check forge.repository (the project's full path, e.g. my-group/sub/app) and forge.apiUrl, and that the token's user can see the project.`,
        details,
      );
    case 409:
    case 422:
      return refused('forgeRefused', `GitLab refused ${what} on ${project} (${status}: ${said}).`, details);
    case undefined:
      return refused('forgeUnreachable', `Could not reach GitLab at ${apiUrl} while ${what}: ${said}.`, details);
    default:
      return refused('forgeFailed', `GitLab answered ${status} while ${what} on ${project}: ${said}.`, details);
  }
}

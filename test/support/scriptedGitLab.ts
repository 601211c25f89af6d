/**
 * A scripted GitLab for the hand-off tests (docs/handoff.md): GitLab is out of reach offline, so
 * this small HTTP server implements only the documented REST API v4 endpoints Foreman calls —
 * create, list, get and update merge requests (with `has_conflicts`, from a real `git merge-tree`);
 * a merge request's discussions; a merge request's pipelines, a pipeline's jobs and a job's trace — with GitLab's shapes, status codes and error bodies. The project is addressed as
 * GitLab requires, by its URL-encoded full path (`my-group%2Fsub%2Fapp`). Branches live in a real
 * bare git repository the clone pushes to: a merge request's head is whatever was pushed there, and
 * `merge` fast-forwards the target branch in it. Tokens are checked as GitLab does: unknown → 401,
 * one without the `api` scope may read (`read_api`) but not write → 403 insufficient_scope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ScriptedForgeServer, readJson, sendJson as send, sendText, tokenScopes, type ScriptedServerOptions } from './scriptedHttp';

export interface ScriptedJob {
  readonly name: string;
  /** GitLab's job status: success, failed, running, pending, canceled… */
  readonly status: string;
  readonly allowFailure?: boolean;
  /** The job's log, served by the trace endpoint (may hold terminal colours, as GitLab's do). */
  readonly trace?: string;
}

export interface ScriptedMergeRequest {
  readonly iid: number;
  readonly sourceBranch: string;
  targetBranch: string;
  readonly title: string;
  readonly description: string;
  state: 'opened' | 'closed' | 'merged';
}

/** A diff note a person left on a merge request's lines (a discussion of GET /merge_requests/:iid/discussions). */
export interface ScriptedDiffNote {
  readonly path: string;
  readonly line: number;
  readonly startLine?: number;
  readonly body: string;
  readonly author: string;
}

export interface ScriptedGitLabOptions extends ScriptedServerOptions {
  /** The project's full path, e.g. my-group/sub/app. */
  readonly project: string;
  /** Token → its scopes (`api`, `read_api`). */
  readonly tokens: Readonly<Record<string, readonly string[]>>;
}

const createSchema = z.object({
  source_branch: z.string(),
  target_branch: z.string(),
  title: z.string(),
  description: z.string().optional(),
});
const updateSchema = z.object({ target_branch: z.string().optional(), state_event: z.enum(['close', 'reopen']).optional() });

export class ScriptedGitLab extends ScriptedForgeServer<ScriptedGitLabOptions> {
  readonly mergeRequests: ScriptedMergeRequest[] = [];
  /** The jobs of the pipeline CI runs for a merge request's head commit; default: no pipeline. */
  jobsFor: (request: ScriptedMergeRequest, sha: string) => readonly ScriptedJob[] | undefined = () => undefined;
  private readonly pipelineIds = new Map<string, number>();
  private readonly traces = new Map<number, string>();
  private readonly discussions: Array<{ readonly iid: number; readonly json: object }> = [];
  private nextJob = 5000;

  static start(options: ScriptedGitLabOptions): Promise<ScriptedGitLab> {
    return new ScriptedGitLab(options).listen();
  }

  /** The API's base URL, as `forge.apiUrl` takes it. */
  get apiUrl(): string {
    return `${this.origin}/api/v4`;
  }

  /** Merges `!iid` as a fast-forward merge does: the target branch moves to the source's head. */
  merge(iid: number): void {
    const request = this.mergeRequest(iid);
    if (request?.state !== 'opened') throw new Error(`merge request !${iid} is not open`);
    if (!this.fastForward(request.sourceBranch, request.targetBranch)) throw new Error(`merge request !${iid}: a branch is missing`);
    request.state = 'merged';
  }

  /** Closes `!iid` without merging it, as a reviewer on GitLab does. */
  close(iid: number): void {
    const request = this.mergeRequest(iid);
    if (!request) throw new Error(`no merge request !${iid}`);
    request.state = 'closed';
  }

  /** A person comments on lines of `!iid`'s diff: a discussion with one diff note (and GitLab's own system note beside it). */
  discuss(iid: number, note: ScriptedDiffNote): void {
    if (!this.mergeRequest(iid)) throw new Error(`no merge request !${iid}`);
    const id = this.discussions.length + 1;
    const author = { id: 7, username: note.author, name: note.author };
    const position = {
      base_sha: 'b',
      start_sha: 's',
      head_sha: 'h',
      position_type: 'text',
      old_path: note.path,
      new_path: note.path,
      old_line: null,
      new_line: note.line,
      line_range:
        note.startLine === undefined
          ? null
          : {
              start: { line_code: 'x', type: 'new', old_line: null, new_line: note.startLine },
              end: { line_code: 'y', type: 'new', old_line: null, new_line: note.line },
            },
    };
    const diffNote = {
      id: 300 + id,
      type: 'DiffNote',
      body: note.body,
      author,
      system: false,
      resolvable: true,
      resolved: false,
      position,
    };
    this.discussions.push({ iid, json: { id: `d${id.toString(16).padStart(8, '0')}`, individual_note: false, notes: [diffNote] } });
    const system = { id: 600 + id, type: null, body: 'added 1 commit', author, system: true, resolvable: false };
    this.discussions.push({ iid, json: { id: `s${id.toString(16).padStart(8, '0')}`, individual_note: true, notes: [system] } });
  }

  mergeRequest(iid: number): ScriptedMergeRequest | undefined {
    return this.mergeRequests.find((request) => request.iid === iid);
  }

  protected async handle(request: IncomingMessage, response: ServerResponse, url: URL, method: string): Promise<void> {
    const scopes = tokenScopes(request, this.options.tokens, { schemes: 'bearer', privateTokenHeader: true });
    if (!scopes) return send(response, 401, { message: '401 Unauthorized' });
    // GitLab takes a project's path only URL-encoded, as one segment.
    const prefix = `/api/v4/projects/${encodeURIComponent(this.options.project)}`;
    if (!url.pathname.startsWith(`${prefix}/`)) return send(response, 404, { message: '404 Project Not Found' });
    if (method !== 'GET' && !scopes.includes('api')) {
      return send(response, 403, {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: 'api',
      });
    }
    const path = url.pathname.slice(prefix.length);
    const body = method === 'POST' || method === 'PUT' ? await readJson(request) : undefined;
    let match: RegExpExecArray | null;
    if (path === '/merge_requests' && method === 'POST') return this.create(response, body);
    if (path === '/merge_requests' && method === 'GET') {
      const source = url.searchParams.get('source_branch');
      const state = url.searchParams.get('state') ?? 'all';
      const listed = this.mergeRequests.filter(
        (candidate) => (state === 'all' || candidate.state === state) && (!source || candidate.sourceBranch === source),
      );
      return send(
        response,
        200,
        listed.reverse().map((candidate) => this.json(candidate)),
      );
    }
    if ((match = /^\/merge_requests\/(\d+)$/.exec(path))) {
      const found = this.mergeRequest(Number(match[1]));
      if (!found) return send(response, 404, { message: '404 Not found' });
      if (method === 'PUT') {
        const update = updateSchema.parse(body);
        if (update.target_branch) found.targetBranch = update.target_branch;
        if (update.state_event === 'close') found.state = 'closed';
      }
      return send(response, 200, this.json(found));
    }
    if ((match = /^\/merge_requests\/(\d+)\/discussions$/.exec(path))) {
      const iid = Number(match[1]);
      if (!this.mergeRequest(iid)) return send(response, 404, { message: '404 Not found' });
      return send(
        response,
        200,
        this.discussions.filter((discussion) => discussion.iid === iid).map((discussion) => discussion.json),
      );
    }
    if ((match = /^\/merge_requests\/(\d+)\/pipelines$/.exec(path))) {
      const found = this.mergeRequest(Number(match[1]));
      if (!found) return send(response, 404, { message: '404 Not found' });
      return send(response, 200, this.pipelinesOf(found));
    }
    if ((match = /^\/pipelines\/(\d+)\/jobs$/.exec(path))) return send(response, 200, this.jobsOf(Number(match[1])));
    if ((match = /^\/jobs\/(\d+)\/trace$/.exec(path))) {
      const trace = this.traces.get(Number(match[1]));
      if (trace === undefined) return send(response, 404, { message: '404 Not found' });
      return sendText(response, trace);
    }
    return send(response, 404, { message: '404 Not Found' });
  }

  private create(response: ServerResponse, body: unknown): void {
    const draft = createSchema.parse(body);
    if (!this.sha(draft.source_branch)) return send(response, 400, { message: ['Source branch does not exist'] });
    const open = this.mergeRequests.find((candidate) => candidate.sourceBranch === draft.source_branch && candidate.state === 'opened');
    if (open) {
      return send(response, 409, { message: [`Another open merge request already exists for this source branch: !${open.iid}`] });
    }
    const created: ScriptedMergeRequest = {
      iid: this.mergeRequests.length + 1,
      sourceBranch: draft.source_branch,
      targetBranch: draft.target_branch,
      title: draft.title,
      description: draft.description ?? '',
      state: 'opened',
    };
    this.mergeRequests.push(created);
    send(response, 201, this.json(created));
  }

  /** One pipeline per head commit the merge request has had CI for, newest first, as GitLab lists them. */
  private pipelinesOf(request: ScriptedMergeRequest): object[] {
    const sha = this.sha(request.sourceBranch);
    if (sha && !this.pipelineIds.has(`${request.iid}:${sha}`) && this.jobsFor(request, sha)) {
      this.pipelineIds.set(`${request.iid}:${sha}`, 100 + this.pipelineIds.size);
    }
    return [...this.pipelineIds.entries()]
      .filter(([key]) => key.startsWith(`${request.iid}:`))
      .map(([key, id]) => ({
        id,
        sha: key.split(':')[1],
        ref: request.sourceBranch,
        status: pipelineStatus(this.jobsFor(request, key.split(':')[1] ?? '') ?? []),
        web_url: this.webUrl(`pipelines/${id}`),
      }))
      .sort((a, b) => b.id - a.id);
  }

  private jobsOf(pipelineId: number): object[] {
    const key = [...this.pipelineIds.entries()].find(([, id]) => id === pipelineId)?.[0];
    const request = key ? this.mergeRequest(Number(key.split(':')[0])) : undefined;
    const sha = key?.split(':')[1];
    if (!request || !sha) return [];
    return (this.jobsFor(request, sha) ?? []).map((job) => {
      const id = this.nextJob++;
      this.traces.set(id, job.trace ?? '');
      return {
        id,
        name: job.name,
        stage: 'test',
        status: job.status,
        allow_failure: job.allowFailure ?? false,
        web_url: this.webUrl(`jobs/${id}`),
      };
    });
  }

  private json(request: ScriptedMergeRequest): object {
    const conflicts = request.state === 'opened' && this.conflicts(request.sourceBranch, request.targetBranch);
    return {
      iid: request.iid,
      id: 7000 + request.iid,
      project_id: 42,
      title: request.title,
      description: request.description,
      state: request.state,
      source_branch: request.sourceBranch,
      target_branch: request.targetBranch,
      sha: this.sha(request.sourceBranch) ?? null,
      has_conflicts: conflicts,
      merge_status: conflicts ? 'cannot_be_merged' : 'can_be_merged',
      detailed_merge_status: conflicts ? 'conflict' : 'mergeable',
      web_url: this.webUrl(`merge_requests/${request.iid}`),
    };
  }

  private webUrl(rest: string): string {
    return `https://gitlab.example/${this.options.project}/-/${rest}`;
  }
}

/** A pipeline's status from its jobs', as GitLab sums them up. */
function pipelineStatus(jobs: readonly ScriptedJob[]): string {
  if (jobs.some((job) => job.status === 'failed' && !job.allowFailure)) return 'failed';
  if (jobs.some((job) => ['created', 'pending', 'running'].includes(job.status))) return 'running';
  return 'success';
}

/**
 * A scripted GitHub for the hand-off tests (docs/handoff.md): GitHub is out of reach offline, so
 * this small HTTP server implements only the documented REST endpoints Foreman calls through the
 * real @octokit/rest — create, get, list and update pull requests (with `mergeable`, from a real
 * `git merge-tree`), a pull request's review comments, a commit's check runs and combined status,
 * and a job's log (a redirect to the text, as GitHub answers). Branches live in a
 * real bare git repository, the clone's `origin`: a pull request's head is whatever was pushed
 * there, and `merge` fast-forwards the base in it, as GitHub's rebase merge does for a stacked
 * branch. Tokens are checked as GitHub does: unknown → 401, known without the `repo` scope → 403.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ScriptedForgeServer, readJson, sendJson as send, sendText, tokenScopes, type ScriptedServerOptions } from './scriptedHttp';

export interface ScriptedCheck {
  readonly name: string;
  /** undefined: still running. */
  readonly conclusion?: 'success' | 'failure';
  /** The job's log, served by the Actions logs endpoint. */
  readonly log?: string;
}

export interface ScriptedPull {
  readonly number: number;
  readonly head: string;
  base: string;
  readonly title: string;
  readonly body: string;
  state: 'open' | 'closed';
  merged: boolean;
}

/** A review comment a person left on a pull request's diff (GET /repos/{o}/{r}/pulls/{n}/comments). */
export interface ScriptedReviewComment {
  readonly path: string;
  readonly line: number;
  readonly startLine?: number;
  readonly body: string;
  readonly user: string;
}

export interface ScriptedForgeOptions extends ScriptedServerOptions {
  readonly owner: string;
  readonly repo: string;
  /** Token → its scopes. */
  readonly tokens: Readonly<Record<string, readonly string[]>>;
}

const createSchema = z.object({ head: z.string(), base: z.string(), title: z.string(), body: z.string().optional() });
const updateSchema = z.object({ base: z.string().optional(), state: z.enum(['open', 'closed']).optional() });

export class ScriptedForge extends ScriptedForgeServer<ScriptedForgeOptions> {
  readonly pulls: ScriptedPull[] = [];
  /** What CI reports for a pull request's head commit; default: nothing. */
  checksFor: (pull: ScriptedPull, sha: string) => readonly ScriptedCheck[] = () => [];
  private readonly logs = new Map<number, string>();
  private readonly reviewComments: Array<ScriptedReviewComment & { readonly id: number; readonly pull: number }> = [];
  private nextJob = 1000;

  static start(options: ScriptedForgeOptions): Promise<ScriptedForge> {
    return new ScriptedForge(options).listen();
  }

  get url(): string {
    return this.origin;
  }

  /** Merges pull request `number` as GitHub's rebase merge of a branch on top of its base: a fast-forward of the base. */
  merge(number: number): void {
    const pull = this.pull(number);
    if (!pull || pull.state !== 'open') throw new Error(`pull request #${number} is not open`);
    if (!this.fastForward(pull.head, pull.base)) throw new Error(`pull request #${number}: a branch is missing`);
    pull.state = 'closed';
    pull.merged = true;
  }

  close(number: number): void {
    const pull = this.pull(number);
    if (!pull) throw new Error(`no pull request #${number}`);
    pull.state = 'closed';
  }

  /** A person comments on lines of pull request `number`'s diff. */
  comment(number: number, comment: ScriptedReviewComment): void {
    if (!this.pull(number)) throw new Error(`no pull request #${number}`);
    this.reviewComments.push({ ...comment, id: 9000 + this.reviewComments.length, pull: number });
  }

  pull(number: number): ScriptedPull | undefined {
    return this.pulls.find((pull) => pull.number === number);
  }

  protected async handle(request: IncomingMessage, response: ServerResponse, url: URL, method: string): Promise<void> {
    const logMatch = /^\/_logs\/(\d+)$/.exec(url.pathname);
    if (logMatch) return sendText(response, this.logs.get(Number(logMatch[1])) ?? '');
    const scopes = tokenScopes(request, this.options.tokens, { schemes: 'token|bearer' });
    if (!scopes) return send(response, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const scopeHeaders = { 'x-oauth-scopes': scopes.join(', '), 'x-accepted-oauth-scopes': 'repo' };
    const prefix = `/repos/${this.options.owner}/${this.options.repo}`;
    if (!url.pathname.startsWith(`${prefix}/`)) return send(response, 404, { message: 'Not Found' });
    if (!scopes.includes('repo')) return send(response, 403, { message: 'Resource not accessible by personal access token' }, scopeHeaders);
    const path = url.pathname.slice(prefix.length);
    const body = method === 'POST' || method === 'PATCH' ? await readJson(request) : undefined;
    let match: RegExpExecArray | null;
    if (path === '/pulls' && method === 'POST') return this.create(response, body);
    if (path === '/pulls' && method === 'GET') {
      const head = url.searchParams.get('head')?.split(':').pop();
      const state = url.searchParams.get('state') ?? 'open';
      const listed = this.pulls.filter((pull) => (state === 'all' || pull.state === state) && (!head || pull.head === head));
      return send(
        response,
        200,
        listed.map((pull) => this.json(pull)),
      );
    }
    if ((match = /^\/pulls\/(\d+)\/comments$/.exec(path)) && method === 'GET') {
      const number = Number(match[1]);
      if (!this.pull(number)) return send(response, 404, { message: 'Not Found' });
      return send(
        response,
        200,
        this.reviewComments.filter((comment) => comment.pull === number).map((comment) => this.commentJson(comment)),
      );
    }
    if ((match = /^\/pulls\/(\d+)$/.exec(path))) {
      const pull = this.pull(Number(match[1]));
      if (!pull) return send(response, 404, { message: 'Not Found' });
      if (method === 'PATCH') {
        const update = updateSchema.parse(body);
        if (update.base) pull.base = update.base;
        if (update.state) pull.state = update.state;
      }
      return send(response, 200, this.json(pull));
    }
    if ((match = /^\/commits\/([^/]+)\/check-runs$/.exec(path))) {
      const runs = this.checksOf(decodeURIComponent(match[1] ?? ''));
      return send(response, 200, { total_count: runs.length, check_runs: runs });
    }
    if ((match = /^\/commits\/([^/]+)\/status$/.exec(path))) {
      return send(response, 200, { state: 'success', sha: match[1], total_count: 0, statuses: [] });
    }
    if ((match = /^\/actions\/jobs\/(\d+)\/logs$/.exec(path))) {
      response.writeHead(302, { location: `${this.url}/_logs/${match[1]}` });
      return void response.end();
    }
    return send(response, 404, { message: 'Not Found' });
  }

  private create(response: ServerResponse, body: unknown): void {
    const draft = createSchema.parse(body);
    if (!this.sha(draft.head)) return send(response, 422, { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] });
    if (this.pulls.some((pull) => pull.head === draft.head && pull.state === 'open')) {
      return send(response, 422, {
        message: 'Validation Failed',
        errors: [{ message: `A pull request already exists for ${draft.head}.` }],
      });
    }
    const pull: ScriptedPull = {
      number: this.pulls.length + 1,
      head: draft.head,
      base: draft.base,
      title: draft.title,
      body: draft.body ?? '',
      state: 'open',
      merged: false,
    };
    this.pulls.push(pull);
    send(response, 201, this.json(pull));
  }

  private checksOf(sha: string): object[] {
    const pull = this.pulls.find((candidate) => this.sha(candidate.head) === sha);
    if (!pull) return [];
    return this.checksFor(pull, sha).map((check) => {
      const id = this.nextJob++;
      this.logs.set(id, check.log ?? '');
      return {
        id,
        name: check.name,
        head_sha: sha,
        status: check.conclusion ? 'completed' : 'in_progress',
        conclusion: check.conclusion ?? null,
        html_url: `https://github.example/${this.options.owner}/${this.options.repo}/actions/runs/1/job/${id}`,
        details_url: null,
        app: { slug: 'github-actions' },
        output: { title: check.conclusion === 'failure' ? 'Process completed with exit code 1.' : null, summary: null, text: null },
      };
    });
  }

  private commentJson(comment: ScriptedReviewComment & { readonly id: number; readonly pull: number }): object {
    const { owner, repo } = this.options;
    return {
      id: comment.id,
      pull_request_review_id: 1,
      path: comment.path,
      line: comment.line,
      start_line: comment.startLine ?? null,
      original_line: comment.line,
      original_start_line: comment.startLine ?? null,
      side: 'RIGHT',
      body: comment.body,
      user: { login: comment.user, type: 'User' },
      html_url: `https://github.example/${owner}/${repo}/pull/${comment.pull}#discussion_r${comment.id}`,
    };
  }

  private json(pull: ScriptedPull): object {
    const { owner, repo } = this.options;
    const conflicts = pull.state === 'open' && this.conflicts(pull.head, pull.base);
    return {
      number: pull.number,
      html_url: `https://github.example/${owner}/${repo}/pull/${pull.number}`,
      state: pull.state,
      merged: pull.merged,
      mergeable: pull.state === 'open' ? !conflicts : null,
      mergeable_state: pull.state !== 'open' ? 'unknown' : conflicts ? 'dirty' : 'clean',
      title: pull.title,
      body: pull.body,
      head: { ref: pull.head, sha: this.sha(pull.head) ?? '' },
      base: { ref: pull.base, sha: this.sha(pull.base) ?? '' },
    };
  }
}

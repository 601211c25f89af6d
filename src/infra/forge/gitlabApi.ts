/**
 * The few endpoints of GitLab's REST API v4 the hand-off uses (docs/handoff.md), through `fetch`:
 * every answer is parsed with zod before it is used, and anything GitLab says that is not the
 * documented shape is an error naming the endpoint. The token goes in the Authorization header
 * (GitLab takes personal, project, group and OAuth tokens as Bearer) and never into an error.
 */
import { z } from 'zod';

/** A merge request as GET /projects/:id/merge_requests/:iid answers (the fields Foreman reads). */
export const mergeRequestSchema = z.object({
  iid: z.number().int().positive(),
  web_url: z.string(),
  /** opened, closed, locked (a transient state while GitLab works on it) or merged. */
  state: z.string(),
  source_branch: z.string(),
  target_branch: z.string(),
  /** The head commit of the source branch; null for a moment after creation. */
  sha: z.string().nullish(),
  /** Whether it conflicts with its target branch. */
  has_conflicts: z.boolean().optional(),
  /** `can_be_merged`, `cannot_be_merged`, `checking`…; deprecated by `detailed_merge_status` but still sent. */
  merge_status: z.string().optional(),
  detailed_merge_status: z.string().optional(),
});
export type MergeRequest = z.infer<typeof mergeRequestSchema>;

/** GET /projects/:id/merge_requests/:iid/pipelines: newest first. */
export const pipelineSchema = z.object({
  id: z.number().int(),
  sha: z.string(),
  status: z.string(),
  web_url: z.string().optional(),
});
export type Pipeline = z.infer<typeof pipelineSchema>;

/** GET /projects/:id/pipelines/:pipeline_id/jobs. */
export const jobSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  allow_failure: z.boolean().optional(),
  web_url: z.string().optional(),
});
export type Job = z.infer<typeof jobSchema>;

const lineSchema = z.number().int().positive().nullish();

/** A diff note's place: GET /projects/:id/merge_requests/:iid/discussions, `notes[].position`. */
const positionSchema = z.object({
  new_path: z.string().nullish(),
  old_path: z.string().nullish(),
  new_line: lineSchema,
  old_line: lineSchema,
  line_range: z
    .object({
      start: z.object({ new_line: lineSchema, old_line: lineSchema }).nullish(),
      end: z.object({ new_line: lineSchema, old_line: lineSchema }).nullish(),
    })
    .nullish(),
});

/** GET /projects/:id/merge_requests/:iid/discussions: threads of notes; a diff note has a position. */
export const discussionSchema = z.object({
  id: z.string(),
  notes: z.array(
    z.object({
      id: z.number().int(),
      type: z.string().nullish(),
      body: z.string(),
      system: z.boolean().optional(),
      author: z.object({ username: z.string() }).nullish(),
      position: positionSchema.nullish(),
    }),
  ),
});
export type Discussion = z.infer<typeof discussionSchema>;

/** How GitLab words an error: `message` (a string, a list or a field map), or OAuth's `error`. */
const errorSchema = z.object({
  message: z.union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())]).optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** GitLab answered with an error status, or not at all (status undefined), or not in the documented shape. */
export class GitLabError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Requests never wait longer than this for GitLab. */
const requestTimeoutMs = 30_000;
/** The most of a job's log that is kept: its end is what says why it failed. */
const traceTailBytes = 64 * 1024;

export class GitLabApi {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
  ) {}

  /** A JSON endpoint, its answer checked against `schema`. */
  async json<T>(method: 'GET' | 'POST' | 'PUT', path: string, schema: z.ZodType<T>, body?: Record<string, unknown>): Promise<T> {
    const response = await this.send(method, path, body);
    const parsed = schema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new GitLabError(
        response.status,
        `the answer to ${method} ${path} is not what GitLab's API documents (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'unexpected'})`,
      );
    }
    return parsed.data;
  }

  /** A text endpoint (a job's log): its last `traceTailBytes`. */
  async text(path: string): Promise<string> {
    const text = await (await this.send('GET', path)).text();
    return text.length > traceTailBytes ? text.slice(-traceTailBytes) : text;
  }

  private async send(method: string, path: string, body?: Record<string, unknown>): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.apiUrl.replace(/\/$/, '')}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          'user-agent': 'foreman',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new GitLabError(undefined, `${error instanceof Error ? error.message : String(error)}${cause}`);
    }
    if (response.ok) return response;
    const said = errorSchema.safeParse(await response.json().catch(() => undefined));
    throw new GitLabError(response.status, said.success ? wordsOf(said.data) : response.statusText || 'no reason given');
  }
}

function wordsOf(error: z.infer<typeof errorSchema>): string {
  const { message } = error;
  const text =
    typeof message === 'string'
      ? message
      : Array.isArray(message)
        ? message.join('; ')
        : message
          ? JSON.stringify(message)
          : [error.error, error.error_description].filter(Boolean).join(': ');
  return text.slice(0, 300) || 'no reason given';
}

// eslint-disable-next-line no-control-regex -- ESC is exactly what is matched
const sectionMarkers = /section_(?:start|end):\d+:[^\r\n]*?\r(?:\x1b\[0K)?/g;
// eslint-disable-next-line no-control-regex -- ESC is exactly what is matched
const escapeSequences = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/** A job log as a person reads it: without the terminal colours and GitLab's collapsible-section markers. */
export function plainTrace(trace: string): string {
  return trace
    .replace(sectionMarkers, '')
    .replace(escapeSequences, '')
    .replace(/\r\n/g, '\n')
    .replace(/^.*\r(?!\n)/gm, '');
}

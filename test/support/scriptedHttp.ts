/**
 * The plumbing the scripted forges (scriptedForge.ts, scriptedGitLab.ts) share: a server on a free
 * local port that records every request and answers a handler's failure with a 500, its branches
 * in a real bare repository (and whether two conflict), JSON and text replies, a request's JSON body, and a token's scopes
 * from its headers.
 */
import { execFileSync } from 'node:child_process';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedServerOptions {
  /** The bare repository the clone pushes to, where the forge's branches live. */
  readonly bareRepo: string;
  readonly gitEnv?: NodeJS.ProcessEnv;
}

export abstract class ScriptedForgeServer<O extends ScriptedServerOptions> {
  /** Every request, as "METHOD path" (the path as sent, still encoded), for the tests to read. */
  readonly requests: string[] = [];
  private readonly server: Server;

  protected constructor(protected readonly options: O) {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const method = request.method ?? 'GET';
      this.requests.push(`${method} ${url.pathname}`);
      void this.handle(request, response, url, method).catch((error: unknown) => sendJson(response, 500, { message: String(error) }));
    });
  }

  /** `http://127.0.0.1:port`, once listening. */
  protected get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Listens on a free local port; resolves to the server itself. */
  protected async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** The head commit of `branch` in the bare repository, undefined when there is none. */
  protected sha(branch: string): string | undefined {
    try {
      return this.git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).trim();
    } catch {
      return undefined;
    }
  }

  /**
   * Moves `target` to `source`'s head, as a fast-forward (or rebase) merge of a branch on top of its
   * target does; false, moving nothing, when a branch is missing.
   */
  protected fastForward(source: string, target: string): boolean {
    const head = this.sha(source);
    const base = this.sha(target);
    if (!head || !base) return false;
    this.git(['merge-base', '--is-ancestor', base, head]);
    this.git(['update-ref', `refs/heads/${target}`, head, base]);
    return true;
  }

  /** Whether merging `source` into `target` conflicts (`git merge-tree`, as the forge's mergeability check does). */
  protected conflicts(source: string, target: string): boolean {
    const head = this.sha(source);
    const base = this.sha(target);
    if (!head || !base) return false;
    try {
      this.git(['merge-tree', '--write-tree', '--name-only', base, head]);
      return false;
    } catch (error) {
      // Exit status 1: the merge has conflicts; anything else is a real failure.
      if ((error as { status?: number }).status === 1) return true;
      throw error;
    }
  }

  private git(args: readonly string[]): string {
    return execFileSync('git', args, {
      cwd: this.options.bareRepo,
      env: this.options.gitEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  protected abstract handle(request: IncomingMessage, response: ServerResponse, url: URL, method: string): Promise<void>;
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

export function sendText(response: ServerResponse, text: string): void {
  response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}

export async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

/**
 * The scopes of the token a request carries — in its `authorization` header under one of `schemes`
 * (e.g. `token|bearer`), or, with `privateTokenHeader`, in `private-token` as GitLab also takes it —
 * or undefined when it carries none or one `tokens` does not know.
 */
export function tokenScopes(
  request: IncomingMessage,
  tokens: Readonly<Record<string, readonly string[]>>,
  options: { readonly schemes: string; readonly privateTokenHeader?: boolean },
): readonly string[] | undefined {
  const bearer = new RegExp(`^(?:${options.schemes}) (.+)$`, 'i').exec(request.headers.authorization ?? '')?.[1];
  const token = bearer ?? (options.privateTokenHeader ? request.headers['private-token'] : undefined);
  return typeof token === 'string' ? tokens[token] : undefined;
}

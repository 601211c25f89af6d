/**
 * Where a forge token comes from, the way the ecosystem's own tools find it (docs/handoff.md).
 * GitHub: GITHUB_TOKEN, then GH_TOKEN, then `gh auth token`. GitLab: GITLAB_TOKEN, then the token
 * glab keeps for the host (`glab config get token --host`). The CLIs run with an argv, no shell. A
 * token is held in memory only: never written to `.foreman/`, never put in a message or a log line.
 */
import { execFile } from 'node:child_process';
import { type Result, ok, refused } from '../../core/result';
import type { ForgeKind } from '../../engine/forge';

/** What a forge asks a token for: which forge, and the API it is for (its host picks the CLI's login). */
export interface TokenRequest {
  readonly forge: ForgeKind;
  /** The REST API's base URL, e.g. https://api.github.com or https://gitlab.example.com/api/v4. */
  readonly apiUrl: string;
}

/** Resolves the token to use now; a refusal says where a token would come from. */
export type TokenSource = (request: TokenRequest) => Promise<Result<string>>;

const noToken: Record<ForgeKind, string> = {
  github:
    'No GitHub token: set GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login` (in VS Code: sign in to GitHub when Foreman asks).',
  gitlab:
    'No GitLab token: set GITLAB_TOKEN to a personal access token with the `api` scope, or log in with `glab auth login` (in VS Code: run Foreman: Set GitLab Token).',
};

/** The refusal when no source has a token for `forge`. */
export function noTokenFor(forge: ForgeKind): Result<string> {
  return refused('forgeNoToken', noToken[forge]);
}

/** A CLI may be slow on its first run; it is never waited on for long. */
const cliTimeoutMs = 10_000;

/** The forges' own command-line tools, by executable name (tests pass one that is not installed). */
export interface ForgeClis {
  readonly gh: string;
  readonly glab: string;
}

/** The CLI's token: the environment's, else the forge's own command-line tool's, for the API's host. */
export function environmentTokenSource(env: NodeJS.ProcessEnv = process.env, clis: ForgeClis = { gh: 'gh', glab: 'glab' }): TokenSource {
  return async ({ forge, apiUrl }) => {
    const host = new URL(apiUrl).hostname;
    if (forge === 'gitlab') {
      const fromEnv = env['GITLAB_TOKEN']?.trim();
      if (fromEnv) return ok(fromEnv);
      const token = await runCli(clis.glab, ['config', 'get', 'token', '--host', host], env);
      return token ? ok(token) : noTokenFor('gitlab');
    }
    const fromEnv = env['GITHUB_TOKEN']?.trim() || env['GH_TOKEN']?.trim();
    if (fromEnv) return ok(fromEnv);
    const args = ['auth', 'token', ...(host !== 'api.github.com' ? ['--hostname', host] : [])];
    const token = await runCli(clis.gh, args, env);
    return token ? ok(token) : noTokenFor('github');
  };
}

/** The first token source that has one (VS Code's, then the environment's). */
export function firstTokenSource(...sources: readonly TokenSource[]): TokenSource {
  return async (request) => {
    let last: Result<string> = noTokenFor(request.forge);
    for (const source of sources) {
      last = await source(request);
      if (last.ok) return last;
    }
    return last;
  };
}

function runCli(cli: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(cli, args, { env, timeout: cliTimeoutMs, windowsHide: true }, (error, stdout) => {
      // Not installed, or not logged in: simply no token from it.
      resolve(error ? undefined : stdout.trim() || undefined);
    });
  });
}

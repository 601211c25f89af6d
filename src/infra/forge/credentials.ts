/**
 * Where a forge token comes from, the way the ecosystem's own tools find it (docs/handoff.md):
 * GITHUB_TOKEN, then GH_TOKEN, then `gh auth token` (argv, no shell). A token is held in memory
 * only: never written to `.foreman/`, never put in a message or a log line.
 */
import { execFile } from 'node:child_process';
import { type Result, ok, refused } from '../../core/result';

/** Resolves the token to use now; a refusal says where a token would come from. */
export type TokenSource = () => Promise<Result<string>>;

const noToken =
  'No GitHub token: set GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login` (in VS Code: sign in to GitHub when Foreman asks).';

/** `gh` may be slow on its first run; it is never waited on for long. */
const ghTimeoutMs = 10_000;

/** The CLI's token: the environment's, else the GitHub CLI's (for the API host of `apiUrl`, if any). */
export function environmentTokenSource(env: NodeJS.ProcessEnv = process.env, apiUrl?: string, gh = 'gh'): TokenSource {
  return async () => {
    const fromEnv = env['GITHUB_TOKEN']?.trim() || env['GH_TOKEN']?.trim();
    if (fromEnv) return ok(fromEnv);
    const host = apiUrl ? new URL(apiUrl).hostname : undefined;
    const args = ['auth', 'token', ...(host && host !== 'api.github.com' ? ['--hostname', host] : [])];
    const token = await runGh(gh, args, env);
    return token ? ok(token) : refused('forgeNoToken', noToken);
  };
}

/** The first token source that has one (VS Code's sign-in, then the environment's). */
export function firstTokenSource(...sources: readonly TokenSource[]): TokenSource {
  return async () => {
    let last: Result<string> = refused('forgeNoToken', noToken);
    for (const source of sources) {
      last = await source();
      if (last.ok) return last;
    }
    return last;
  };
}

function runGh(gh: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(gh, args, { env, timeout: ghTimeoutMs, windowsHide: true }, (error, stdout) => {
      // No `gh`, or not logged in: simply no token from it.
      resolve(error ? undefined : stdout.trim() || undefined);
    });
  });
}

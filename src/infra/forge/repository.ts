/** Which repository on the forge a git remote points at (docs/handoff.md). */
import { type Result, invalid, ok } from '../../core/result';

export interface ForgeRepository {
  readonly owner: string;
  readonly repo: string;
}

const part = /^[A-Za-z0-9_.-]{1,100}$/;

/** `owner/name` as the `forge.repository` setting writes it. */
export function parseRepository(text: string): Result<ForgeRepository> {
  const [owner = '', repo = '', ...rest] = text.split('/');
  if (rest.length || !part.test(owner) || !part.test(repo)) {
    return invalid('forgeRepository', `'${text.slice(0, 200)}' is not owner/name (e.g. octo-org/app).`);
  }
  return ok({ owner, repo: repo.replace(/\.git$/, '') });
}

/**
 * The owner and name in a remote's URL: https://host/owner/name(.git), ssh://git@host/owner/name,
 * git@host:owner/name. Anything else (a local path) needs the `forge.repository` setting.
 */
export function repositoryOfRemoteUrl(url: string): Result<ForgeRepository> {
  const trimmed = url.trim();
  const scp = /^[^@/\s]+@[^:/\s]+:(.+)$/.exec(trimmed);
  let path: string | undefined = scp?.[1];
  if (!path && /^(https?|ssh|git):\/\//.test(trimmed)) path = new URL(trimmed).pathname.replace(/^\//, '');
  const parsed = path ? parseRepository(path.replace(/\/$/, '')) : undefined;
  if (parsed?.ok) return parsed;
  return invalid(
    'forgeRepository',
    `The remote's URL '${trimmed.slice(0, 200)}' names no owner/name on a forge; set forge.repository (e.g. "octo-org/app") in .foreman/settings.json.`,
  );
}

/** Which forge, and which repository on it, a git remote points at (docs/handoff.md). */
import { type Result, invalid, ok } from '../../core/result';
import type { ForgeKind } from '../../engine/forge';

export interface ForgeRepository {
  readonly owner: string;
  readonly repo: string;
}

/** Where a network remote lives: its host, and the repository's path there (no leading slash, no `.git`). */
export interface RemoteLocation {
  readonly host: string;
  /** `scheme://host[:port]` of an http(s) remote (its web and API server); undefined for ssh. */
  readonly webOrigin?: string;
  readonly path: string;
}

const part = /^[A-Za-z0-9_.-]{1,100}$/;
/** GitLab nests groups up to 20 levels: group/subgroup/…/project. */
const maxGitLabDepth = 21;

/**
 * The host and path of a remote's URL: https://host/path(.git), ssh://git@host[:port]/path,
 * git@host:path. A local path (or a file:// URL) is no forge's, and gives undefined.
 */
export function remoteLocation(url: string): RemoteLocation | undefined {
  const trimmed = url.trim();
  const scp = /^[^@/\s]+@([^:/\s]+):(.+)$/.exec(trimmed);
  if (scp?.[1] && scp[2]) return { host: scp[1].toLowerCase(), path: cleanPath(scp[2]) };
  if (!/^(https?|ssh|git):\/\//.test(trimmed)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return undefined;
  }
  const web = parsed.protocol === 'https:' || parsed.protocol === 'http:';
  return { host: parsed.hostname.toLowerCase(), ...(web ? { webOrigin: parsed.origin } : {}), path: cleanPath(parsed.pathname) };
}

function cleanPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A stray '%' is kept as it is; the path check refuses it.
  }
  return decoded.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
}

/**
 * The forge a remote's host names by itself: github.com is GitHub; gitlab.com, its subdomains and a
 * host whose first label is `gitlab` (gitlab.example.com) are GitLab. Any other host is undecided:
 * GitHub Enterprise (the default) unless `forge.kind` says "gitlab".
 */
export function forgeKindOfHost(host: string): ForgeKind | undefined {
  const name = host.toLowerCase();
  if (name === 'github.com' || name.endsWith('.github.com')) return 'github';
  if (name === 'gitlab.com' || name.endsWith('.gitlab.com') || name.startsWith('gitlab.')) return 'gitlab';
  return undefined;
}

/** `owner/name` as the `forge.repository` setting writes it for GitHub. */
export function parseRepository(text: string): Result<ForgeRepository> {
  const [owner = '', repo = '', ...rest] = text.split('/');
  if (rest.length || !part.test(owner) || !part.test(repo)) {
    return invalid('forgeRepository', `'${text.slice(0, 200)}' is not owner/name (e.g. octo-org/app).`);
  }
  return ok({ owner, repo: repo.replace(/\.git$/, '') });
}

/** A GitLab project's full path, `group/project` or `group/subgroup/…/project`, as `forge.repository` writes it. */
export function parseProjectPath(text: string): Result<string> {
  const parts = text.replace(/\.git$/, '').split('/');
  if (parts.length < 2 || parts.length > maxGitLabDepth || !parts.every((segment) => part.test(segment) && !/^\.+$/.test(segment))) {
    return invalid('forgeRepository', `'${text.slice(0, 200)}' is not a GitLab project path (e.g. my-group/app or my-group/sub/app).`);
  }
  return ok(parts.join('/'));
}

/**
 * The owner and name in a remote's URL: https://host/owner/name(.git), ssh://git@host/owner/name,
 * git@host:owner/name. Anything else (a local path) needs the `forge.repository` setting.
 */
export function repositoryOfRemoteUrl(url: string): Result<ForgeRepository> {
  const location = remoteLocation(url);
  const parsed = location ? parseRepository(location.path) : undefined;
  if (parsed?.ok) return parsed;
  return invalid(
    'forgeRepository',
    `The remote's URL '${url.trim().slice(0, 200)}' names no owner/name on a forge; set forge.repository (e.g. "octo-org/app") in .foreman/settings.json.`,
  );
}

/**
 * The GitLab project a remote's URL names, nested groups included. A server under a relative URL
 * (`https://example.com/gitlab/…`, its API at `https://example.com/gitlab/api/v4`) serves http(s)
 * remotes under that same prefix, which is not part of the project's path.
 */
export function projectOfRemoteUrl(url: string, apiUrl?: string): Result<string> {
  const location = remoteLocation(url);
  let path = location?.path;
  const prefix = apiUrl ? new URL(apiUrl).pathname.replace(/\/api\/v4\/?$/, '').replace(/^\/+|\/+$/g, '') : '';
  if (path && location?.webOrigin && prefix && path.startsWith(`${prefix}/`)) path = path.slice(prefix.length + 1);
  const parsed = path ? parseProjectPath(path) : undefined;
  if (parsed?.ok) return parsed;
  return invalid(
    'forgeRepository',
    `The remote's URL '${url.trim().slice(0, 200)}' names no GitLab project; set forge.repository (e.g. "my-group/app") in .foreman/settings.json.`,
  );
}

/** GitLab's API for a remote on it: the http(s) remote's own server, else https on the ssh host. */
export function gitLabApiUrlOf(location: RemoteLocation): string {
  return `${location.webOrigin ?? `https://${location.host}`}/api/v4`;
}

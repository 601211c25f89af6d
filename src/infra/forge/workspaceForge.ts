/**
 * The forge of a `pull-request` workspace (docs/handoff.md): the one `forge.kind` names, else the
 * one the remote's host names (github.com, gitlab.com, gitlab.* — forgeKindOfHost), else GitHub
 * (Enterprise) as before GitLab was supported. Decided at first use, since reading the remote is
 * git's work; a decision that fails (no remote yet) is tried again at the next use.
 */
import { type Result, ok, refused } from '../../core/result';
import type { CheckInfo, ForgeKind, ForgePort, PullRequestDraft, PullRequestInfo, ReviewCommentInfo } from '../../engine/forge';
import type { WorkRef } from '../../engine/ports';
import { openGit } from '../git/gitClient';
import type { TokenSource } from './credentials';
import { GitHubForge } from './github';
import { GitLabForge } from './gitlab';
import { forgeKindOfHost, gitLabApiUrlOf, parseProjectPath, projectOfRemoteUrl, remoteLocation } from './repository';

export interface WorkspaceForgeOptions {
  readonly repoRoot: string;
  /** The git remote branches are pushed to (and whose URL names the forge and the repository). */
  readonly remote: string;
  /** `forge.kind`; default: from the remote's host. */
  readonly kind?: ForgeKind;
  /** `forge.repository`: owner/name (GitHub) or group/…/project (GitLab); default: from the remote's URL. */
  readonly repository?: string;
  /** `forge.apiUrl`; default: https://api.github.com, or the GitLab server of the remote (https://<host>/api/v4). */
  readonly apiUrl?: string;
  readonly token: TokenSource;
  readonly log: (line: string) => void;
}

const gitLabDotCom = 'https://gitlab.com/api/v4';

export class WorkspaceForge implements ForgePort {
  private chosen: ForgePort | undefined;

  constructor(private readonly options: WorkspaceForgeOptions) {}

  get name(): string {
    return this.chosen?.name ?? (this.options.kind === 'gitlab' ? 'GitLab' : 'GitHub');
  }

  push(work: WorkRef): Promise<Result<void>> {
    return this.with((forge) => forge.push(work));
  }

  open(draft: PullRequestDraft): Promise<Result<PullRequestInfo>> {
    return this.with((forge) => forge.open(draft));
  }

  get(number: number): Promise<Result<PullRequestInfo>> {
    return this.with((forge) => forge.get(number));
  }

  retarget(number: number, base: string): Promise<Result<void>> {
    return this.with((forge) => forge.retarget(number, base));
  }

  checks(pull: PullRequestInfo): Promise<Result<CheckInfo[]>> {
    return this.with((forge) => forge.checks(pull));
  }

  comments(pull: PullRequestInfo): Promise<Result<ReviewCommentInfo[]>> {
    return this.with((forge) => forge.comments(pull));
  }

  private async with<T>(use: (forge: ForgePort) => Promise<Result<T>>): Promise<Result<T>> {
    const forge = await this.forge();
    return forge.ok ? use(forge.value) : forge;
  }

  private async forge(): Promise<Result<ForgePort>> {
    if (this.chosen) return ok(this.chosen);
    const { repoRoot, remote, repository, apiUrl, token, log } = this.options;
    const url = await openGit(repoRoot)
      .raw(['remote', 'get-url', '--', remote])
      .then((text) => text.trim())
      .catch(() => undefined);
    const location = url ? remoteLocation(url) : undefined;
    const kind = this.options.kind ?? (location ? forgeKindOfHost(location.host) : undefined) ?? 'github';
    if (kind === 'github') {
      // GitHubForge reads owner/name from the remote itself when the setting does not give it.
      this.chosen = new GitHubForge({ repoRoot, remote, ...(repository ? { repository } : {}), ...(apiUrl ? { apiUrl } : {}), token, log });
      return ok(this.chosen);
    }
    const project = repository
      ? parseProjectPath(repository)
      : url
        ? projectOfRemoteUrl(url, apiUrl)
        : refused('unknownRemote', `The repository has no remote '${remote}'; add it or set forge.remote.`);
    if (!project.ok) return project;
    const gitLabApi = apiUrl ?? (location ? gitLabApiUrlOf(location) : gitLabDotCom);
    this.chosen = new GitLabForge({ repoRoot, remote, project: project.value, apiUrl: gitLabApi, token });
    log(`forge: GitLab project ${project.value} at ${gitLabApi}`);
    return ok(this.chosen);
  }
}

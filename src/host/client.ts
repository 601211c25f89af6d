/**
 * A workspace another process owns (a second window, `foreman serve`): requests go to the owner's
 * endpoint; git is read here, from the same repository and worktree root the owner uses.
 */
import { type Result, refused } from '../core/result';
import type { OwnerInfo } from '../infra/db';
import { answerTo, sendRequest } from '../infra/endpoint/client';
import { attemptLogFile } from '../infra/agents/attemptLog';
import { GitPortAdapter } from '../infra/git/gitPort';
import { readOwner } from '../infra/workspace/ownerFile';
import { foremanDir as foremanDirOf } from '../infra/workspace/paths';
import { readStoreConfig } from '../infra/workspace/storeConfig';
import type { Workspace } from './workspace';

export interface ClientOptions {
  /** Where worker worktrees are (the `foreman.worktreeRoot` setting); default beside the repository. */
  readonly worktreeRoot?: string;
  /** The base branch as last read from the owner; `main` until it is known. */
  readonly baseBranch: () => string | undefined;
  /** How long a request may wait for its answer. Default 60 s. */
  readonly timeoutMs?: number;
}

export interface WorkspaceClient extends Workspace {
  /** The owner as its lock names it now; undefined when there is none. */
  owner(): OwnerInfo | undefined;
}

/**
 * Connects to the owner of the workspace at `repoRoot`. A request the owner does not take answers
 * `ownerUnreachable` (refused); an owner's unexpected failure reaches the caller as refused too.
 */
export function connectClient(repoRoot: string, options: ClientOptions): WorkspaceClient {
  const dir = foremanDirOf(repoRoot);
  const git = new GitPortAdapter(
    repoRoot,
    () => options.baseBranch() ?? 'main',
    options.worktreeRoot ? { worktreeRoot: options.worktreeRoot } : {},
  );
  // The store `.foreman/store.json` names; an owner given another (the `foreman.store` setting) uses that one.
  const config = readStoreConfig(dir);
  return {
    repoRoot,
    foremanDir: dir,
    storeKind: config.ok ? config.value.kind : undefined,
    git,
    logFile: (taskId, attempt) => attemptLogFile(dir, taskId, attempt),
    owner: () => readOwner(dir),
    async execute(request) {
      const sent = await sendRequest(dir, request, { timeoutMs: options.timeoutMs ?? 60_000 });
      if (sent.kind !== 'response') return refused('ownerUnreachable', `The owner of this workspace did not answer (${sent.reason}).`);
      const result = answerTo(request, sent.response);
      return result.ok ? result : ({ ...result, kind: result.kind === 'unexpected' ? 'refused' : result.kind } satisfies Result<never>);
    },
    dispose: () => undefined,
  };
}

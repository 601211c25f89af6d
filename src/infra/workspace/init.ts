import { type Result, invalid, ok } from '../../core/result';
import type { Reader } from '../../engine/ports';
import { SqlJsStore, acquireOwnerLock } from '../db';
import { initRepoInfo, validateBranchName } from '../git';
import { openGit, resolveCommit } from '../git/gitClient';
import { foremanDir as foremanDirOf, isInitialised } from './paths';

export interface InitOptions {
  /** The branch tasks start from and merge into; default: the branch checked out now. */
  readonly base?: string;
  readonly log?: (line: string) => void;
}

/** What `foreman init` found and did. */
export interface InitReport {
  readonly repoRoot: string;
  readonly foremanDir: string;
  readonly baseBranch: string;
  /** False when the workspace was already initialised. */
  readonly created: boolean;
  /** The meta keys this call wrote (empty when nothing changed). */
  readonly changed: string[];
}

/**
 * Creates `.foreman/` (with its `.gitignore` of `*`) and the store in a git repository's root, and
 * records the base branch and the repository root. Idempotent: a second call changes nothing
 * unless it names a different base. Refuses a folder that is not a repository's root (invalid),
 * and a workspace another live process owns (refused `ownedByOther`).
 */
export async function initWorkspace(repoRoot: string, options: InitOptions = {}): Promise<Result<InitReport>> {
  const repository = await initRepoInfo(repoRoot);
  if (!repository.ok) return repository;
  const root = repository.value.root;
  const dir = foremanDirOf(root);
  const existed = isInitialised(dir);
  if (options.base !== undefined) {
    const checked = await checkBase(root, options.base);
    if (!checked.ok) return checked;
  }
  const lock = acquireOwnerLock(dir, { role: 'cli' }, options.log ? { log: options.log } : {});
  if (!lock.ok) return lock;
  try {
    const store = await SqlJsStore.open(dir, options.log ? { log: options.log } : {});
    try {
      const recorded = store.read((reader) => ({ base: metaValue(reader, 'base_branch'), root: metaValue(reader, 'repo_root') }));
      const base = options.base ?? recorded.base ?? repository.value.currentBranch;
      if (base === undefined) {
        return invalid('detachedHead', `base: HEAD is detached in ${root}, so there is no branch to default to; pass --base <branch>.`, {
          dir: root,
        });
      }
      const wanted: Array<[string, string]> = [
        ['base_branch', base],
        ['repo_root', root],
      ];
      const changes = wanted.filter(([key, value]) => (key === 'base_branch' ? recorded.base : recorded.root) !== value);
      if (changes.length > 0) {
        const written = store.write((tx) => {
          for (const [key, value] of changes) tx.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]);
          return ok(undefined);
        });
        if (!written.ok) return written;
      }
      return ok({ repoRoot: root, foremanDir: dir, baseBranch: base, created: !existed, changed: changes.map(([key]) => key) });
    } finally {
      store.close();
    }
  } finally {
    lock.value.release();
  }
}

/** An explicit base must be a valid name of an existing local branch: tasks branch from it. */
async function checkBase(root: string, base: string): Promise<Result<string>> {
  const git = openGit(root);
  const name = await validateBranchName(git, base);
  if (!name.ok) return invalid(name.code, `base: ${name.message}`, name.details ? { ...name.details } : undefined);
  if ((await resolveCommit(git, `refs/heads/${base}`)) === undefined) {
    return invalid('unknownBranch', `base: there is no local branch '${base}' in ${root}; create it first or name an existing one.`, {
      base,
    });
  }
  return ok(base);
}

function metaValue(reader: Reader, key: string): string | undefined {
  return reader.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value;
}

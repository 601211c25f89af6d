import { type Result, invalid, ok } from '../../core/result';
import type { Reader } from '../../engine/ports';
import { readArchiveState } from '../../engine/archiveChain';
import { readExportedSeq } from '../../engine/queries/exportState';
import { writeMeta } from '../../engine/queries/meta';
import { ensureStoreId, readStoreId } from '../../engine/storeIdentity';
import { acquireOwnerLock } from '../db';
import { initRepoInfo, validateBranchName } from '../git';
import { openGit, resolveCommit } from '../git/gitClient';
import { type AdoptionReport, adoptArchiveAndExports } from './archiveAdoption';
import { folderBefore, undoFailedInit } from './failedInit';
import { foremanDir as foremanDirOf, isInitialised } from './paths';
import { openStore, storeBackend } from './storeBackends';
import { type StoreConfig, readStoreConfig, writeStoreConfig } from './storeConfig';

export interface InitOptions {
  /** The branch tasks start from and merge into; default: the branch checked out now. */
  readonly base?: string;
  /** The store to use (`--store`, the `foreman.store` setting); default: the one already chosen, else sql.js. */
  readonly store?: StoreConfig;
  /** The password given with `--store`: used for this call's connection, never written. */
  readonly storePassword?: string;
  readonly log?: (line: string) => void;
}

/** What `foreman init` found and did. */
export interface InitReport {
  readonly repoRoot: string;
  readonly foremanDir: string;
  readonly baseBranch: string;
  /** `sqljs`, or the PostgreSQL server without its password. */
  readonly store: string;
  /** False when the workspace was already initialised. */
  readonly created: boolean;
  /** The meta keys this call wrote, and `store` when it chose another store (empty when nothing changed). */
  readonly changed: string[];
  /** The store's identity, which its archive segments and export lines carry. */
  readonly storeId: string;
  /** The archive and exports found in the folder: kept as this store's, or moved aside (issue 28). */
  readonly archive: AdoptionReport;
}

/**
 * Creates `.foreman/` (with its `.gitignore` of `*`) and the store in a git repository's root, and
 * records the base branch (and, on sql.js, the repository root). On PostgreSQL it connects, applies
 * the migrations and records the base branch in the shared meta only when none is recorded or
 * `base` is given: each clone that joins the server keeps the team's base. The repository root is
 * this machine's, so it is not written to a shared store. `store.json` is written last, so a server
 * that cannot be reached leaves the clone as it was. Idempotent: a second call changes nothing
 * unless it names a different base or store. Refuses a folder that is not a repository's root
 * (invalid), and a workspace another live process owns (refused `ownedByOther`).
 */
export async function initWorkspace(repoRoot: string, options: InitOptions = {}): Promise<Result<InitReport>> {
  // A failed init takes back what it made (failedInit.ts, issue 29): a server that cannot be reached leaves no `.foreman/`.
  const before = folderBefore(repoRoot);
  let report: Result<InitReport> | undefined;
  try {
    return (report = await initWorkspaceOnce(repoRoot, options));
  } finally {
    if (!report?.ok) undoFailedInit(before);
  }
}

async function initWorkspaceOnce(repoRoot: string, options: InitOptions): Promise<Result<InitReport>> {
  const repository = await initRepoInfo(repoRoot);
  if (!repository.ok) return repository;
  const root = repository.value.root;
  const dir = foremanDirOf(root);
  const existed = isInitialised(dir);
  const current = readStoreConfig(dir);
  if (!current.ok) return current;
  const config = chosenStore(options.store, current.value);
  const storeChanged = !sameStore(config, current.value);
  if (options.base !== undefined) {
    const checked = await checkBase(root, options.base);
    if (!checked.ok) return checked;
  }
  const lock = acquireOwnerLock(dir, { role: 'cli' }, options.log ? { log: options.log } : {});
  if (!lock.ok) return lock;
  try {
    const backend = storeBackend(config);
    const shared = backend.shared;
    if (shared) options.log?.(`connecting to ${backend.name} and bringing its schema up to date…`);
    // A server that is down or refuses the login: said (storeUnreachable); nothing was written.
    const opened = await openStore(backend, dir, {
      ...(options.storePassword !== undefined ? { password: options.storePassword } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    if (!opened.ok) return opened;
    const { store } = opened.value;
    try {
      const recorded = store.read((reader) => ({
        base: metaValue(reader, 'base_branch'),
        root: metaValue(reader, 'repo_root'),
        storeId: readStoreId(reader),
      }));
      const base = options.base ?? recorded.base ?? repository.value.currentBranch;
      if (base === undefined) {
        return invalid('detachedHead', `base: HEAD is detached in ${root}, so there is no branch to default to; pass --base <branch>.`, {
          dir: root,
        });
      }
      const wanted: Array<[string, string, string | undefined]> = [['base_branch', base, recorded.base]];
      // The root is per machine: on a shared store each clone would overwrite the others'.
      if (!shared) wanted.push(['repo_root', root, recorded.root]);
      const changes = wanted.filter(([, value, before]) => before !== value);
      if (changes.length > 0 || recorded.storeId === undefined) {
        const written = store.write((tx) => {
          for (const [key, value] of changes) writeMeta(tx, key, value);
          // A store made before identities gets its own now, before its archive and exports are judged.
          ensureStoreId(tx);
          return ok(undefined);
        });
        if (!written.ok) return written;
      }
      const record = store.read((reader) => ({
        ...readArchiveState(reader),
        store: readStoreId(reader) ?? '',
        exported: { transitions: readExportedSeq(reader, 'transitions'), messages: readExportedSeq(reader, 'messages') },
      }));
      const archive = adoptArchiveAndExports(dir, record, new Date());
      if (storeChanged) writeStoreConfig(dir, config);
      return ok({
        repoRoot: root,
        foremanDir: dir,
        baseBranch: base,
        store: describeStore(config),
        created: !existed,
        changed: [...changes.map(([key]) => key), ...(storeChanged ? ['store'] : [])],
        storeId: record.store,
        archive,
      });
    } finally {
      store.close();
    }
  } finally {
    lock.value.release();
  }
}

/** The store as messages name it: `sqljs`, or the server's URL without a password. */
export function describeStore(config: StoreConfig): string {
  return storeBackend(config).name;
}

/** The store asked for; the same server named again keeps the TLS options already in `store.json`. */
function chosenStore(asked: StoreConfig | undefined, current: StoreConfig): StoreConfig {
  if (asked === undefined) return current;
  if (asked.kind === 'postgres' && current.kind === 'postgres' && asked.url === current.url && asked.ssl === undefined) return current;
  return asked;
}

function sameStore(a: StoreConfig, b: StoreConfig): boolean {
  if (a.kind === 'postgres' && b.kind === 'postgres') return a.url === b.url && JSON.stringify(a.ssl) === JSON.stringify(b.ssl);
  return a.kind === b.kind && JSON.stringify(a) === JSON.stringify(b);
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

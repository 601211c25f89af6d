import * as fs from 'node:fs';
import * as path from 'node:path';
import { isStoreFileName, storeConfigName } from './storeFileNames';

/** The folder that holds a workspace's tool state; never committed (it holds a `.gitignore` of `*`). */
export const foremanDirName = '.foreman';

export function foremanDir(repoRoot: string): string {
  return path.join(repoRoot, foremanDirName);
}

/**
 * A workspace is initialised once any store file exists, or `store.json` naming a PostgreSQL store
 * (written once `foreman init` has set that store up); a bare `.foreman/` (say, a lock) is not
 * enough. Any generation counts: a checkpoint killed mid-way leaves `foreman.db.1` and
 * `foreman.db.tmp` without `foreman.db`, and opening the store finishes it. A `.foreman/` that
 * cannot be listed (EACCES) is present: calling it absent would start or climb to another store,
 * where opening it says what is wrong.
 */
export function isInitialised(dir: string): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
  return names.some((name) => isStoreFileName(name) || name === storeConfigName);
}

/**
 * The repository root that holds an initialised `.foreman/`, searching from `start` upwards, as
 * git does for `.git`. Undefined when no folder on the way up has one.
 */
export function findWorkspaceRoot(start: string): string | undefined {
  let current = path.resolve(start);
  for (;;) {
    if (isInitialised(foremanDir(current))) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

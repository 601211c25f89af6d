import * as fs from 'node:fs';
import * as path from 'node:path';

/** The folder that holds a workspace's tool state; never committed (it holds a `.gitignore` of `*`). */
export const foremanDirName = '.foreman';

export function foremanDir(repoRoot: string): string {
  return path.join(repoRoot, foremanDirName);
}

/** A workspace is initialised once its store exists; a bare `.foreman/` (say, a lock) is not enough. */
export function isInitialised(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'foreman.db')) || fs.existsSync(path.join(dir, 'foreman.journal'));
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

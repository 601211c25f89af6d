/**
 * A failed `foreman init` leaves the folder as it found it (issue 29): when `.foreman/` was not there
 * before, what init created in it (the `.gitignore`, a store it began) is removed again, and the
 * folder too once empty, so that a failed first try does not leave a half workspace in the clone.
 * Anything else found there is left alone, and so is a folder another process holds the lock of.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readOwner } from './ownerFile';
import { foremanDir } from './paths';
import { isStoreFileName } from './storeFileNames';

/** The folder init works in, and whether it was there before init began. */
export interface FolderBefore {
  readonly dir: string;
  readonly existed: boolean;
}

export function folderBefore(repoRoot: string): FolderBefore {
  const dir = foremanDir(path.resolve(repoRoot));
  return { dir, existed: fs.existsSync(dir) };
}

/** After a failed init: removes what it created in a folder that was not there before. */
export function undoFailedInit(before: FolderBefore): void {
  if (before.existed || readOwner(before.dir) !== undefined) return;
  let names: string[];
  try {
    names = fs.readdirSync(before.dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === '.gitignore' || isStoreFileName(name)) fs.rmSync(path.join(before.dir, name), { force: true });
  }
  try {
    fs.rmdirSync(before.dir);
  } catch {
    // Not empty: something init did not make is there; it stays.
  }
}

import * as path from 'node:path';
import type { ChangedFile } from '../../host/infraParts';

/** One entry of the changes editor: what its two sides show, as paths (the command makes URIs of them). */
export interface ChangeSides {
  /** The entry's own resource: the file as it is now, or as it was when the branch deletes it. */
  readonly label: string;
  /** The file at the base: its absolute path (as the worktree would hold it) and its path in the repository. */
  readonly original?: { readonly path: string; readonly file: string };
  /** The file in the worker's worktree. */
  readonly modified?: string;
}

/**
 * VS Code's changes editor (`vscode.changes`, `[label, original, modified]` per file) reads an
 * entry without an original as added and one without a modified side as deleted, and shows it as
 * renamed ("R", the old name struck through) whenever the two sides' URI paths differ. So a file
 * the branch adds has no original, one it deletes has no modified side, and every other original
 * carries the very same path as its modified side: only a real rename has two paths.
 */
export function changeSides(files: readonly ChangedFile[], worktree: string): ChangeSides[] {
  const inWorktree = (file: string) => path.join(worktree, file);
  const atBase = (file: string) => ({ path: inWorktree(file), file });
  return files.map((file): ChangeSides => {
    const here = inWorktree(file.path);
    switch (file.status) {
      // A copy leaves its source untouched: the new file is what the branch adds.
      case 'added':
      case 'copied':
        return { label: here, modified: here };
      case 'deleted':
        return { label: here, original: atBase(file.path) };
      case 'renamed':
        return { label: here, original: atBase(file.previousPath ?? file.path), modified: here };
      case 'modified':
      case 'typeChanged':
      case 'other':
        return { label: here, original: atBase(file.path), modified: here };
    }
  });
}

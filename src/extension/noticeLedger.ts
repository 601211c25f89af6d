import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Claims older than this are removed when a window opens the folder: their notices are long answered. */
const keepMs = 7 * 24 * 60 * 60 * 1000;

/**
 * Which notifications a workspace has raised, shared by every window on it (issue 30: a second
 * window re-raised what the first had shown). A notice is raised by the window that claims it
 * first; a claim is a file in `.foreman/notices/` created with O_EXCL, which one process wins and
 * the others are refused, with no lock and no owner to ask (docs/decisions.md says why not the
 * engine). A folder whose claims cannot be written (read-only disk) raises its notices as before.
 */
export class NoticeLedger {
  private readonly dir: string;

  constructor(foremanDir: string, now = Date.now()) {
    this.dir = path.join(foremanDir, 'notices');
    prune(this.dir, now);
  }

  /** True for the first caller on this workspace to claim `key`, false for every later one. */
  claim(key: string): boolean {
    const file = path.join(this.dir, createHash('sha256').update(key).digest('hex').slice(0, 32));
    try {
      fs.mkdirSync(this.dir, { recursive: true });
    } catch {
      return true;
    }
    try {
      fs.closeSync(fs.openSync(file, 'wx'));
      return true;
    } catch (error) {
      // Only "it exists" means another window raised it; any other failure must not silence a notice.
      return (error as NodeJS.ErrnoException).code !== 'EEXIST';
    }
  }
}

function prune(dir: string, now: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      if (now - fs.statSync(file).mtimeMs > keepMs) fs.rmSync(file, { force: true });
    } catch {
      // Another window pruned it first.
    }
  }
}

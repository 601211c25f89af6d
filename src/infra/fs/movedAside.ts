import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { fsyncDirectory, writeFileAtomic } from './atomicFile';

/**
 * Folders `foreman init` moved another store's archive and exports into (issue 28):
 * `.foreman/moved-2026-11-28T10-15-00.000Z/`, laid out as `.foreman/` is (`archive/NNNNNN.jsonl`,
 * `transitions.jsonl`, `bus.jsonl`), with `moved.json` saying when, why, and whose they are.
 * Nothing in them is ever deleted or appended to; `foreman history` still reads them.
 */
export const movedAsidePrefix = 'moved-';
const noteName = 'moved.json';

const movedNoteSchema = z.object({
  movedAt: z.string(),
  by: z.string(),
  /** The store they belonged to, when they named one. */
  from: z.string().nullable(),
  /** The store that was in the folder when they were moved aside. */
  store: z.string(),
  reason: z.string(),
});
export type MovedNote = z.infer<typeof movedNoteSchema>;

export interface MovedAsideFolder {
  readonly dir: string;
  readonly note: MovedNote | undefined;
}

/** A new dated folder in `foremanDir` for what is moved aside now, with its note. */
export function createMovedAsideFolder(foremanDir: string, note: MovedNote, now: Date): string {
  const stamp = now.toISOString().replace(/:/g, '-');
  let dir = path.join(foremanDir, `${movedAsidePrefix}${stamp}`);
  for (let suffix = 2; fs.existsSync(dir); suffix++) dir = path.join(foremanDir, `${movedAsidePrefix}${stamp}-${suffix}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  writeFileAtomic(path.join(dir, noteName), `${JSON.stringify(note, null, 2)}\n`);
  fsyncDirectory(foremanDir);
  return dir;
}

/** Moves `from` (a file or a folder) to `to`, durably: a rename, never a copy and delete. */
export function moveAside(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  fs.renameSync(from, to);
  fsyncDirectory(path.dirname(from));
  fsyncDirectory(path.dirname(to));
}

/** The moved-aside folders in `foremanDir`, oldest first. */
export function movedAsideFolders(foremanDir: string): MovedAsideFolder[] {
  let names: string[];
  try {
    names = fs.readdirSync(foremanDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(movedAsidePrefix))
    .sort()
    .map((name) => path.join(foremanDir, name))
    .filter((dir) => fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true)
    .map((dir) => ({ dir, note: readNote(dir) }));
}

function readNote(dir: string): MovedNote | undefined {
  try {
    const parsed = movedNoteSchema.safeParse(JSON.parse(fs.readFileSync(path.join(dir, noteName), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

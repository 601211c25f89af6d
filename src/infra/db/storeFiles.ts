/**
 * The store's files in `.foreman/` and the crash-safe way to replace them.
 *
 * Generation 0 is the current file (`foreman.db`, `foreman.journal`); generation n is the n-th
 * older one (`foreman.db.1`, `foreman.journal.1`, ...). Journal n holds the records written after
 * image n was taken, so image n plus journals n..0 rebuild the latest state.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { imageName, journalName, nextJournalName, tempImageName } from '../workspace/storeFileNames';
import { readImageFile } from './imageFile';

/** A file's size, 0 when it is not there. */
export function fileSizeOr0(filePath: string): number {
  try {
    return fs.statSync(filePath).size;
  } catch {
    return 0;
  }
}

export { imageName, isStoreFileName, journalName, nextJournalName, tempImageName } from '../workspace/storeFileNames';

/** Hears the name of each file-system step of a checkpoint before it happens (tests kill there). */
export type FileStep = (step: string) => void;

/** A store file and how many checkpoints old it is (0 = current). */
export interface GenerationFile {
  readonly path: string;
  readonly name: string;
  readonly generation: number;
}

export interface StoreFiles {
  /** Images, newest first. */
  readonly images: GenerationFile[];
  /** Journals, oldest first (the order their records were written). */
  readonly journals: GenerationFile[];
}

export function generationName(base: string, generation: number): string {
  return generation === 0 ? base : `${base}.${generation}`;
}

export function listStoreFiles(dir: string): StoreFiles {
  const images: GenerationFile[] = [];
  const journals: GenerationFile[] = [];
  for (const name of fs.readdirSync(dir)) {
    for (const [base, list] of [
      [imageName, images],
      [journalName, journals],
    ] as const) {
      const match = name === base ? '0' : name.startsWith(`${base}.`) ? name.slice(base.length + 1) : undefined;
      if (match !== undefined && /^(0|[1-9]\d{0,5})$/.test(match)) {
        list.push({ path: path.join(dir, name), name, generation: Number(match) });
      }
    }
    if (name === nextJournalName) journals.push({ path: path.join(dir, name), name, generation: 0 });
  }
  images.sort((a, b) => a.generation - b.generation);
  // Within generation 0, foreman.journal before foreman.journal.next: the order they were written.
  journals.sort((a, b) => b.generation - a.generation || a.name.length - b.name.length);
  return { images, journals };
}

/**
 * Creates `.foreman/` and its `.gitignore` (tool state is never committed) if missing. Both steps
 * tolerate another process creating the same things at the same moment.
 *
 * The folder is 0700: prompts, agent output and the endpoint token are nobody else's business. A
 * folder left wider (by an older Foreman, or by hand) is tightened at every open, because that one
 * mode guards every file inside it, whatever the file's own mode.
 */
export function ensureForemanDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  tightenFolder(dir);
  try {
    fs.writeFileSync(path.join(dir, '.gitignore'), '*\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Only the folder's owner may chmod it; anyone else is refused later, with a message, by the lock. */
function tightenFolder(dir: string): void {
  const stat = fs.statSync(dir);
  if ((stat.mode & 0o077) === 0 || stat.uid !== process.getuid?.()) return;
  fs.chmodSync(dir, stat.mode & 0o700);
}

/** Makes renames and creations in `dir` durable. Windows cannot open folders; NTFS journals them. */
export function fsyncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function renameIfExists(from: string, to: string, fileStep: FileStep): void {
  if (!fs.existsSync(from)) return;
  fileStep(`rename ${path.basename(from)} to ${path.basename(to)}`);
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Moves every generation of `base` one step older, dropping the oldest (a rename replaces it).
 * Oldest first, so no rename ever overwrites a file that has not moved on yet.
 */
function shiftGenerations(dir: string, base: string, backups: number, fileStep: FileStep): void {
  for (let generation = backups; generation >= 1; generation--) {
    renameIfExists(path.join(dir, generationName(base, generation - 1)), path.join(dir, generationName(base, generation)), fileStep);
  }
}

/**
 * One step of installing a checkpoint: `renames` run at once (microseconds); `fsync` of the folder
 * is the slow part, which a checkpoint in the background awaits while the owner goes on answering.
 */
export type InstallStep = { readonly kind: 'renames'; readonly run: () => void } | { readonly kind: 'fsync' };

/**
 * The steps that install the fsync'd `foreman.db.tmp` as the new `foreman.db`, keeping `backups`
 * older images and their journals. Writes went to `foreman.journal.next` since the image was taken
 * (checkpointer.ts); the last step renames it to `foreman.journal`, through which it goes on.
 *
 * Invariant, at every instant and so after a crash at any point: some image on disk plus the
 * journals on disk hold every record newer than that image. It holds because
 *  - the new image is complete and fsync'd before anything moves, and holds every record up to the
 *    seq it was taken at; every later record is in `foreman.journal.next`, which moves last;
 *  - images and journals only move one generation older, oldest first: an image is overwritten only
 *    by the next newer image, and a journal only by the next newer journal, after the image that
 *    needed it was itself overwritten;
 *  - with no backups kept, the old journal is deleted only after the new image has replaced the old
 *    one, and holds nothing newer than it.
 * While `foreman.db` is briefly missing (between the rotation and the rename of the image), the next
 * open finishes the rename (`foreman.db.tmp` is whole and fsync'd by then); failing that, the loader
 * uses `foreman.db.1` plus the journals. The folder is fsync'd after the rotation and after the
 * final renames so that, on file systems that reorder metadata, no later step lands before an
 * earlier one, and the new `foreman.journal` is durable under its name.
 */
export function installSteps(dir: string, backups: number, fileStep: FileStep = () => undefined): InstallStep[] {
  const installImage = (): void => {
    fileStep(`rename ${tempImageName} to ${imageName}`);
    fs.renameSync(path.join(dir, tempImageName), path.join(dir, imageName));
  };
  const installJournal = (): void => renameIfExists(path.join(dir, nextJournalName), path.join(dir, journalName), fileStep);
  if (backups > 0) {
    return [
      {
        kind: 'renames',
        run: () => {
          shiftGenerations(dir, imageName, backups, fileStep);
          shiftGenerations(dir, journalName, backups, fileStep);
        },
      },
      { kind: 'fsync' },
      {
        kind: 'renames',
        run: () => {
          installImage();
          installJournal();
        },
      },
      { kind: 'fsync' },
    ];
  }
  return [
    { kind: 'renames', run: installImage },
    { kind: 'fsync' },
    {
      kind: 'renames',
      run: () => {
        fileStep(`remove ${journalName}`);
        fs.rmSync(path.join(dir, journalName), { force: true });
        installJournal();
      },
    },
    { kind: 'fsync' },
  ];
}

/** Runs the steps of `installSteps` at once (a checkpoint at open, at close, or asked for). */
export function runInstallSteps(dir: string, steps: readonly InstallStep[], fileStep: FileStep = () => undefined): void {
  for (const step of steps) {
    if (step.kind === 'renames') step.run();
    else {
      fileStep('fsync the folder');
      fsyncDirectory(dir);
    }
  }
}

/** `fsyncDirectory` on the thread pool, so that the owner answers requests meanwhile. */
export async function fsyncDirectoryAsync(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * A checkpoint killed after moving `foreman.db` to `foreman.db.1` and before renaming
 * `foreman.db.tmp` into place leaves no `foreman.db`. The temp image was complete and fsync'd
 * before anything moved (its checksum proves it is whole), so finishing the rename completes the
 * checkpoint: the image holds every record of the journals that were rotated with it. Any other
 * temp image is from a checkpoint killed before it moved anything, and is dropped.
 */
export function completeInterruptedCheckpoint(dir: string, log: (line: string) => void): void {
  const tempPath = path.join(dir, tempImageName);
  if (!fs.existsSync(tempPath)) return;
  if (!fs.existsSync(path.join(dir, imageName))) {
    const read = readImageFile(tempPath);
    if (read.kind === 'image' && read.checksummed) {
      fs.renameSync(tempPath, path.join(dir, imageName));
      fsyncDirectory(dir);
      log(`Completed a checkpoint that was interrupted: ${tempImageName} is now ${imageName}.`);
      return;
    }
  }
  fs.rmSync(tempPath, { force: true });
}

/** A recovered-from image is kept for inspection under a new name, never deleted. */
export function setDamagedImageAside(
  dir: string,
  images: readonly { name: string; generation: number }[],
  loadedName: string | undefined,
  log: (line: string) => void,
): void {
  if (loadedName === imageName || !images.some((image) => image.generation === 0)) return;
  const aside = `${imageName}.damaged-${Date.now()}`;
  fs.renameSync(path.join(dir, imageName), path.join(dir, aside));
  log(`Kept the damaged ${imageName} as ${aside}.`);
}

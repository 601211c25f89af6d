/**
 * Copies the untracked files a worktree needs to run (`.env`, local config) from the main checkout,
 * and keeps them out of every commit Foreman makes. They are listed in a marked block of the
 * repository's shared `info/exclude` (the common git dir: every worktree reads that one file), so
 * `add --all` in commitLeftovers and in wip snapshots passes them over, as it does ignored files.
 */
import { copyFile, lstat, mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { type Result, invalid, ok, refused } from '../../core/result';
import { copyFileGlobSchema } from '../../engine/settings';
import { writeFileAtomic } from '../fs/atomicFile';
import { commonDirectory, errorText, isGitFailure, nulFields, openGit } from '../git/gitClient';

export const excludeBlockStart = '# >>> foreman: files copied into worktrees (managed by Foreman; edits inside this block are replaced)';
export const excludeBlockEnd = '# <<< foreman';

/** Tool state is never a setup file, whatever a glob like `**` says. */
const foremanFolder = '.foreman/';

/** Keeps argv well under the operating system's limit when many paths are passed to git. */
const pathsPerCall = 200;

export interface CopyOutcome {
  readonly copied: string[];
  /** Matches left alone, each with the reason (a link, tracked in the worktree, …). */
  readonly skipped: { path: string; reason: string }[];
}

/** `worktree` must be a checked worktree top level (verifyWorktreeTopLevel) of `repoRoot`'s repository. */
export async function copySetupFiles(repoRoot: string, worktree: string, globs: readonly string[]): Promise<Result<CopyOutcome>> {
  for (const glob of globs) {
    const parsed = copyFileGlobSchema.safeParse(glob);
    if (!parsed.success)
      return invalid(
        'invalidCopyGlob',
        `The copy glob ${JSON.stringify(glob)} is refused: ${parsed.error.issues[0]?.message ?? 'bad glob'}.`,
      );
  }
  if (globs.length === 0) return ok({ copied: [], skipped: [] });
  const source = await realpath(repoRoot);
  const target = await realpath(worktree);
  const common = await commonDirectory(source);
  if (common === undefined || common !== (await commonDirectory(target))) {
    return refused('foreignWorktree', `'${worktree}' is not a worktree of the repository at '${repoRoot}'; no files were copied.`, {
      path: worktree,
    });
  }

  let candidates: string[];
  let tracked: Set<string>;
  try {
    candidates = await untrackedMatches(source, globs);
    tracked = await trackedAmong(target, candidates);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('copyFilesFailed', `Could not list the files to copy into '${worktree}': ${errorText(error)}`, { path: worktree });
  }

  const outcome: CopyOutcome = { copied: [], skipped: [] };
  const planned: string[] = [];
  for (const path of candidates) {
    const reason = tracked.has(path) ? 'tracked in the worktree' : await unsafeReason(source, target, path);
    if (reason === undefined) planned.push(path);
    else outcome.skipped.push({ path, reason });
  }
  if (planned.length === 0) return ok(outcome);

  // Excluded before the copies exist, so no moment leaves a copied file committable.
  await addToExcludeBlock(join(common, 'info', 'exclude'), planned);
  for (const path of planned) {
    try {
      await mkdir(dirname(join(target, path)), { recursive: true });
      await copyFile(join(source, path), join(target, path));
      outcome.copied.push(path);
    } catch (error) {
      return refused('copyFilesFailed', `Could not copy '${path}' into '${worktree}': ${(error as Error).message}`, { path });
    }
  }
  return ok(outcome);
}

/**
 * Files of the main checkout that git does not track and that a glob matches, ignored ones
 * included (a `.env` is usually ignored). `--others` lists a nested repository as one `dir/` entry
 * and never follows a symbolic link to a folder, so only plain paths inside the checkout come back.
 */
async function untrackedMatches(repoRoot: string, globs: readonly string[]): Promise<string[]> {
  const output = await openGit(repoRoot).raw(['ls-files', '-z', '--others', '--', ...globs.map((glob) => `:(glob)${glob}`)]);
  return nulFields(output)
    .filter((path) => !path.endsWith('/') && !path.startsWith(foremanFolder))
    .sort();
}

/** The paths the worktree's branch tracks: copying over them would change committed files. */
async function trackedAmong(worktree: string, paths: readonly string[]): Promise<Set<string>> {
  const tracked = new Set<string>();
  const git = openGit(worktree);
  for (let start = 0; start < paths.length; start += pathsPerCall) {
    const literal = paths.slice(start, start + pathsPerCall).map((path) => `:(literal)${path}`);
    for (const path of nulFields(await git.raw(['ls-files', '-z', '--cached', '--', ...literal]))) tracked.add(path);
  }
  return tracked;
}

/**
 * Why a match must not be copied, or undefined when it may. The source must be a regular file
 * whose real folder is inside the checkout; on the worktree side no folder on the way may be a
 * link (it could point anywhere), and an existing target must be a regular file we overwrite.
 */
async function unsafeReason(source: string, target: string, path: string): Promise<string | undefined> {
  if (path.includes('\n') || path.includes('\r')) return 'its name holds a line break, which info/exclude cannot list';
  const from = await lstat(join(source, path)).catch(() => undefined);
  if (from === undefined) return 'gone before it could be copied';
  if (from.isSymbolicLink()) return 'a symbolic link';
  if (!from.isFile()) return 'not a regular file';
  if (!isInside(source, await realpath(dirname(join(source, path))))) return 'its folder leads outside the repository';

  const segments = path.split('/');
  let folder = target;
  for (const segment of segments.slice(0, -1)) {
    folder = join(folder, segment);
    const info = await lstat(folder).catch(() => undefined);
    if (info === undefined) break;
    if (!info.isDirectory()) return `'${folder.slice(target.length + 1)}' in the worktree is not a plain folder`;
  }
  const existing = await lstat(join(target, path)).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) return 'the worktree holds something other than a regular file there';
  return undefined;
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Adds `paths` to Foreman's block of the exclude file, keeping everything else in the file as it
 * was. The block only grows: a path once copied stays excluded, so an old copy in some worktree is
 * never picked up later.
 */
export async function addToExcludeBlock(excludeFile: string, paths: readonly string[]): Promise<void> {
  const text = await readFile(excludeFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const start = lines.indexOf(excludeBlockStart);
  const end = start === -1 ? -1 : lines.indexOf(excludeBlockEnd, start + 1);
  const inBlock = start !== -1 && end !== -1 ? lines.slice(start + 1, end) : [];
  const entries = new Set(inBlock.filter((line) => line.length > 0));
  const before = entries.size;
  for (const path of paths) entries.add(excludePattern(path));
  if (entries.size === before && start !== -1 && end !== -1) return;

  const block = [excludeBlockStart, ...[...entries].sort(), excludeBlockEnd];
  const kept = start !== -1 && end !== -1 ? [...lines.slice(0, start), ...block, ...lines.slice(end + 1)] : [...lines, ...block];
  await mkdir(dirname(excludeFile), { recursive: true });
  writeFileAtomic(excludeFile, `${kept.join('\n')}\n`);
}

/** An exclude line matching exactly this path from the top: gitignore's wildcards and trailing spaces escaped. */
export function excludePattern(path: string): string {
  return `/${path.replace(/[\\*?[\]!#]/g, (character) => `\\${character}`).replace(/ +$/, (spaces) => spaces.replace(/ /g, '\\ '))}`;
}

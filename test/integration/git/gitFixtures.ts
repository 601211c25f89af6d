/**
 * Real repositories in temp folders for the git layer's tests. Importing this isolates git from
 * the machine's configuration: no system config, and HOME points at an empty folder, so the
 * only identity is the one each test repository sets locally (or deliberately does not).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { simpleGit, type SimpleGit } from 'simple-git';
import { isolateGitFromMachine, makeGitRepo } from '../../support/gitRepo';

const sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-git-test-')));
isolateGitFromMachine(sandbox);

after(() => rmSync(sandbox, { recursive: true, force: true }));

export interface Fixture {
  /** The main checkout, `<temp>/<name>/repo`; worktrees default to `<temp>/<name>/.foreman-worktrees/repo/<worker>`. */
  readonly root: string;
  readonly git: SimpleGit;
}

let counter = 0;

/** A repository with one commit on `main` holding `a.txt` and `b.txt`. */
export function makeRepo(options: { identity?: boolean } = {}): Promise<Fixture> {
  counter += 1;
  const root = makeGitRepo(join(sandbox, `case-${counter}`, 'repo'), {
    files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' },
    ...(options.identity === false ? { identity: { name: 'Setup', email: 'setup@example.com' }, configureIdentity: false } : {}),
  });
  return Promise.resolve({ root, git: simpleGit(root) });
}

export function writeFile(folder: string, name: string, content: string): void {
  const path = join(folder, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

export function readFile(folder: string, name: string): string {
  return readFileSync(join(folder, name), 'utf8');
}

/** Commits everything in `folder` with `message` (the test user's identity). */
export async function commitAllIn(folder: string, message: string): Promise<string> {
  const git = simpleGit(folder, { config: ['user.name=Test User', 'user.email=test@example.com'] });
  await git.raw(['add', '--all']);
  await git.raw(['commit', '--quiet', '-m', message]);
  return (await git.raw(['rev-parse', 'HEAD'])).trim();
}

export async function revParse(folder: string, name: string): Promise<string> {
  return (await simpleGit(folder).raw(['rev-parse', name])).trim();
}

/** The branch checked out in `folder`. */
export async function branchOf(folder: string): Promise<string> {
  return (await simpleGit(folder).raw(['symbolic-ref', '--short', 'HEAD'])).trim();
}

/** `git status --porcelain` exactly as git prints it (untracked files listed one by one). */
export async function statusOf(folder: string): Promise<string> {
  return simpleGit(folder).raw(['status', '--porcelain', '--untracked-files=all']);
}

/** Every ref with its target, to prove that a refused call created nothing. */
export async function allRefs(folder: string): Promise<string> {
  return simpleGit(folder).raw(['for-each-ref', '--format=%(refname) %(objectname)']);
}

export function unwrap<T>(result: { ok: true; value: T } | { ok: false; code: string; message: string }): T {
  if (!result.ok) throw new Error(`expected success, got ${result.code}: ${result.message}`);
  return result.value;
}

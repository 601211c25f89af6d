// What the UI tests set up before a workbench opens: the built extension and git repositories with
// Foreman initialised through its own CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../../scripts/vscode/paths.mjs';

/** Builds dist/ for a UI test run on its own; `npm test` built it already and says so (FOREMAN_BUILT=1). */
export function ensureBuilt(): void {
  if (process.env['FOREMAN_BUILT'] === '1') return;
  if (spawnSync(process.execPath, [join(repoRoot, 'scripts/build.mjs')], { stdio: 'inherit' }).status !== 0)
    throw new Error('build failed');
}

export interface TestRepo {
  readonly dir: string;
  /** git in the repository; output trimmed. */
  git(...args: string[]): string;
  /** The built `foreman` CLI with `--dir` the repository; its stdout. */
  foreman(...args: string[]): string;
}

/** A git repository on `main` whose first commit holds `files` (path → text), with an identity of its own. */
export function makeTestRepo(dir: string, files: Readonly<Record<string, string>>): TestRepo {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' })
      .toString()
      .trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Foreman UI Test');
  git('config', 'user.email', 'ui-test@foreman.invalid');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'Start');
  const foreman = (...args: string[]) =>
    execFileSync(process.execPath, [join(repoRoot, 'dist/cli.js'), ...args, '--dir', dir], { stdio: 'pipe' }).toString();
  return { dir, git, foreman };
}

// What the UI tests set up before a workbench opens: the built extension and git repositories with
// Foreman initialised through its own CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../../scripts/vscode/paths.mjs';
import { makeGitRepo } from '../../support/gitRepo';

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

/**
 * A git repository on `main` whose first commit holds `files` (path → text), with an identity of
 * its own (test/support/gitRepo.ts); `origin`: a bare repository made there, `main` pushed to it.
 */
export function makeTestRepo(dir: string, files: Readonly<Record<string, string>>, options: { origin?: string } = {}): TestRepo {
  makeGitRepo(dir, { files, identity: { name: 'Foreman UI Test', email: 'ui-test@foreman.invalid' }, message: 'Start', ...options });
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' })
      .toString()
      .trim();
  const foreman = (...args: string[]) =>
    execFileSync(process.execPath, [join(repoRoot, 'dist/cli.js'), ...args, '--dir', dir], { stdio: 'pipe' }).toString();
  return { dir, git, foreman };
}

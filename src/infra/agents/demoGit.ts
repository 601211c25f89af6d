/**
 * Git as the demo agent uses it: argv arrays to the git executable, never a shell (node builtins
 * only, as the demo agent ships as one standalone script). Includes the one "intelligent" thing the
 * demo does: rebasing onto the base and resolving every conflict by keeping both sides.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Identity used when the environment sets none: git lets GIT_AUTHOR_* / GIT_COMMITTER_* override
 * `-c user.*`, so a caller's identity still wins. Auto-stash and ref updates stay off so a rebase
 * never parks or moves anything the agent did not ask for.
 */
const fixedConfig = [
  '-c',
  'user.name=Demo Agent',
  '-c',
  'user.email=demo@foreman.invalid',
  '-c',
  'rebase.autoStash=false',
  '-c',
  'rebase.updateRefs=false',
  '-c',
  'core.editor=true',
];

export interface GitOutcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export type Say = (line: string) => void;

export class DemoGit {
  constructor(
    private readonly cwd: string,
    private readonly say: Say,
  ) {}

  /** Runs git; throws with git's own words unless `allowFailure`. */
  run(args: readonly string[], allowFailure = false): GitOutcome {
    const result = spawnSync('git', [...fixedConfig, ...args], {
      cwd: this.cwd,
      encoding: 'utf8',
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (result.error) throw result.error;
    const outcome = { status: result.status, stdout: result.stdout, stderr: result.stderr };
    if (outcome.status !== 0 && !allowFailure)
      throw new Error(`git ${args.join(' ')} failed: ${(outcome.stderr || outcome.stdout).trim()}`);
    return outcome;
  }

  isDirty(): boolean {
    return this.run(['status', '--porcelain', '--untracked-files=all']).stdout.trim() !== '';
  }

  /** Stages everything and commits; a clean worktree is a no-op (a relaunch may have nothing new). */
  commitAll(message: string): boolean {
    if (!this.isDirty()) {
      this.say(`nothing to commit for "${message}"`);
      return false;
    }
    this.run(['add', '--all']);
    this.run(['commit', '--quiet', '--no-verify', '-m', message, ...foremanTrailers()]);
    this.say(`committed "${message}" as ${this.run(['rev-parse', '--short', 'HEAD']).stdout.trim()}`);
    return true;
  }

  /** Subjects of the commits on HEAD that are not on `base`; empty when the base is unknown. */
  subjectsSince(base: string | undefined): string[] {
    if (!base || this.run(['rev-parse', '--verify', '--quiet', `${base}^{commit}`], true).status !== 0) return [];
    const log = this.run(['log', '--format=%s', '-z', `${base}..HEAD`]).stdout;
    return log.split('\0').filter((subject) => subject !== '');
  }

  private rebaseInProgress(): boolean {
    return ['rebase-merge', 'rebase-apply'].some((name) =>
      existsSync(resolve(this.cwd, this.run(['rev-parse', '--git-path', name]).stdout.trim())),
    );
  }

  private conflictedFiles(): string[] {
    return this.run(['diff', '--name-only', '--diff-filter=U', '-z'])
      .stdout.split('\0')
      .filter((file) => file !== '');
  }

  /**
   * Rebases HEAD onto `onto`, resolving each conflicted file by keeping both sides. Leftover edits
   * are committed first: rebase refuses a dirty worktree, and stashing could strand them.
   */
  rebaseKeepingBoth(onto: string): void {
    if (this.isDirty()) this.commitAll('demo: work in progress before rebase');
    this.say(`rebasing onto ${onto}`);
    const first = this.run(['rebase', onto], true);
    if (first.status !== 0 && !this.rebaseInProgress())
      throw new Error(`git rebase ${onto} failed: ${(first.stderr || first.stdout).trim()}`);
    // Each round settles one replayed commit; the bound only guards against a git that never finishes.
    for (let round = 0; this.rebaseInProgress(); round++) {
      if (round > 1000) throw new Error('the rebase did not finish after 1000 steps');
      for (const file of this.conflictedFiles()) this.resolveKeepingBoth(file);
      const next = this.run(['rebase', '--continue'], true);
      if (next.status !== 0 && this.rebaseInProgress() && this.conflictedFiles().length === 0) {
        // The resolved commit changed nothing (both sides already agreed): drop it, as git suggests.
        if (/nothing to commit|empty/i.test(next.stdout + next.stderr)) this.run(['rebase', '--skip'], true);
        else throw new Error(`git rebase --continue failed: ${(next.stderr || next.stdout).trim()}`);
      }
    }
    this.say(`rebased onto ${onto}; HEAD is ${this.run(['rev-parse', '--short', 'HEAD']).stdout.trim()}`);
  }

  private resolveKeepingBoth(file: string): void {
    const path = resolve(this.cwd, file);
    if (!existsSync(path)) {
      // Deleted on the side that won; there is no text to keep.
      this.run(['rm', '--cached', '--quiet', '--', file]);
      this.say(`conflict in ${file}: removed on one side, keeping it removed`);
      return;
    }
    writeFileSync(path, keepBothSides(readFileSync(path, 'utf8')));
    this.run(['add', '--', file]);
    this.say(`conflict in ${file}: kept both sides`);
  }
}

/**
 * Removes conflict markers, keeping "ours" then "theirs" and dropping a diff3 base section. During
 * a rebase "ours" is the base branch and "theirs" the replayed commit, so the base's line comes first.
 */
export function keepBothSides(text: string): string {
  const kept: string[] = [];
  let section: 'outside' | 'ours' | 'base' | 'theirs' = 'outside';
  for (const line of text.split('\n')) {
    if (section === 'outside' && line.startsWith('<<<<<<<')) section = 'ours';
    else if (section === 'ours' && line.startsWith('|||||||')) section = 'base';
    else if ((section === 'ours' || section === 'base') && /^=======\s*$/.test(line)) section = 'theirs';
    else if (section === 'theirs' && line.startsWith('>>>>>>>')) section = 'outside';
    else if (section !== 'base') kept.push(line);
  }
  return kept.join('\n');
}

/** The agent signs its commits with the task it works on, as Foreman's own commits are signed. */
function foremanTrailers(): string[] {
  const trailers: Array<[string, string | undefined]> = [
    ['Foreman-Task', process.env['FOREMAN_TASK_ID']],
    ['Foreman-Worker', process.env['FOREMAN_WORKER_ID']],
    ['Foreman-Attempt', process.env['FOREMAN_ATTEMPT']],
  ];
  return trailers.flatMap(([key, value]) => (value ? ['--trailer', `${key}: ${value}`] : []));
}

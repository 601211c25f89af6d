/**
 * A crew's machines in temp folders (issue 14): a bare repository standing in for the shared
 * remote, and clones of it, each with its own worktrees beside it (`<case>/<machine>/repo`).
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { simpleGit } from 'simple-git';
import { makeRepo } from './gitFixtures';

export interface SharedRemote {
  /** The bare repository every clone has as `origin`. */
  readonly remote: string;
  /** Clones of it, one per machine, each on `main` with the test identity. */
  readonly clones: readonly string[];
}

/** A bare remote holding `main` (one commit: `a.txt`, `b.txt`) and `machines` clones of it. */
export async function sharedRemote(machines = 2): Promise<SharedRemote> {
  const seed = await makeRepo();
  const caseDir = dirname(seed.root);
  const remote = join(caseDir, 'remote.git');
  await simpleGit(caseDir).raw(['clone', '--quiet', '--bare', seed.root, remote]);
  // Bare repositories keep no reflog by default: the tests read the base's history of updates.
  await simpleGit(remote).raw(['config', 'core.logAllRefUpdates', 'always']);
  const clones: string[] = [];
  for (let index = 0; index < machines; index += 1) {
    const machine = join(caseDir, `machine-${String.fromCharCode(97 + index)}`);
    mkdirSync(machine);
    const clone = join(machine, 'repo');
    await simpleGit(machine).raw(['clone', '--quiet', remote, clone]);
    await simpleGit(clone).raw(['config', 'user.name', 'Test User']);
    await simpleGit(clone).raw(['config', 'user.email', 'test@example.com']);
    clones.push(clone);
  }
  return { remote, clones };
}

/** The commits `main` pointed at on the remote, oldest first, from its reflog. */
export async function remoteBaseHistory(remote: string, branch = 'main'): Promise<string[]> {
  const output = await simpleGit(remote).raw(['reflog', 'show', '--format=%H', `refs/heads/${branch}`, '--']);
  return output.split('\n').filter(Boolean).reverse();
}

/** Whether every update of the remote's base in its reflog was a fast-forward (nothing was ever forced). */
export async function onlyFastForwards(remote: string, branch = 'main'): Promise<boolean> {
  const history = await remoteBaseHistory(remote, branch);
  const git = simpleGit(remote);
  for (let index = 1; index < history.length; index += 1) {
    const older = history[index - 1] ?? '';
    const newer = history[index] ?? '';
    // Nothing reachable from the older tip is missing from the newer one: a fast-forward.
    if ((await git.raw(['rev-list', '--count', `${newer}..${older}`, '--'])).trim() !== '0') return false;
  }
  return true;
}

/**
 * The README's team setup, end to end (issue 14): one PostgreSQL server, a bare repository as the
 * shared remote, two clones of it standing for two machines (machine-a, machine-b), each with its
 * own `foreman serve` and two workers running the demo agent. A chain and free tasks go through
 * review and merge, approved and merged from machine-b only; machine-a's owner is SIGKILLed while
 * its workers hold tasks. Its lease runs out, machine-b takes its tasks back and finishes them,
 * and afterwards the remote's main holds every change exactly once, by fast-forwards only.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type CrewRepo,
  type Status,
  type Transition,
  CrewRepo as Clone,
  fastSettings,
  gitIn,
  reviewUntil,
  sandboxPath,
} from '../crew/crewHarness';
import { onlyFastForwards } from '../git/remoteFixtures';
import { type TestPostgres, startPostgres } from '../../support/postgres';

let postgres: TestPostgres;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
});

const chain = `# Two steps

- [ ] Step one
  write chain/one.txt one
  append chain.txt one
  sleep 600
  commit chain step one
- [ ] Step two
  write chain/two.txt two
  append chain.txt two
  commit chain step two
`;

/** Free tasks, long enough that machine-a's workers are holding some when its owner dies. */
const freeTasks: Record<string, string> = {
  'free-1': 'write free/1.txt first\nsleep 2500\ncommit free one',
  'free-2': 'write free/2.txt second\nsleep 2500\ncommit free two',
  'free-3': 'write free/3.txt third\nsleep 2500\ncommit free three',
  'free-4': 'write free/4.txt fourth\nsleep 2500\ncommit free four',
};

/** The store's URL as `foreman init --store` takes it: no password (that comes from PGPASSWORD). */
function storeUrl(): string {
  const url = new URL(postgres.url);
  url.password = '';
  return url.toString();
}

/** The lines of the README block marked `<!-- team-setup: <step> -->`, whose fence must be `language`. */
function readmeBlock(step: string, language: 'sh' | 'json'): string[] {
  const lines = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'team.md'), 'utf8').split('\n');
  const marker = lines.findIndex((line) => line === `<!-- team-setup: ${step} -->`);
  assert.ok(marker >= 0, `docs/team.md has no <!-- team-setup: ${step} --> marker`);
  assert.equal(lines[marker + 1], `\`\`\`${language}`, `the team-setup ${step} marker is followed by a \`\`\`${language} block`);
  const close = lines.findIndex((line, index) => index > marker + 1 && line === '```');
  return lines.slice(marker + 2, close).filter((line) => line.trim() !== '');
}

/** A README team-setup block of commands: each a `foreman` command, as an argv. */
function teamSetupSteps(step: string): string[][] {
  return readmeBlock(step, 'sh').map((line) => {
    const words = line.trim().split(/\s+/);
    assert.equal(words[0], 'foreman', `a team-setup step runs foreman: ${line}`);
    return words.slice(1);
  });
}

/** The README's example values, and what this test uses instead. */
const readmeUrl = 'postgres://foreman@db.example.com:5432/foreman';

/**
 * A clone of `remote` on a machine named `host`, set up as the README's team-setup steps 3 to 6 say
 * (its example server, host, worker and agent replaced by this test's, its settings given this test's
 * short times), with `workers` on it.
 */
async function machine(remote: string, host: string, workers: readonly string[]): Promise<CrewRepo> {
  const folder = sandboxPath(host);
  mkdirSync(folder);
  const root = join(folder, 'repo');
  gitIn(folder, ['clone', '--quiet', remote, root]);
  const clone = new Clone(root, join(folder, 'worktrees'), { FOREMAN_HOST: host, PGPASSWORD: postgres.password });
  const ours = (args: readonly string[]) => args.map((word) => (word === readmeUrl ? storeUrl() : word === 'build-1' ? host : word));
  for (const args of [...teamSetupSteps('init'), ...teamSetupSteps('check')]) await clone.ok(ours(args));
  // Step 5: the file init does not write, as the README gives it, with this test's times added.
  const settingsPath = join(root, '.foreman', 'settings.json');
  assert.equal(existsSync(settingsPath), false, 'init writes no settings.json: the README has the person create it');
  const readmeSettings = JSON.parse(readmeBlock('settings', 'json').join('\n')) as Record<string, unknown>;
  assert.equal(readmeSettings['remote'], 'origin');
  const settings = { ...fastSettings, worktreeRoot: clone.worktreeRoot, ownerLeaseMs: 3000, ...readmeSettings };
  writeFileSync(settingsPath, JSON.stringify(settings, null, 2));
  for (const args of teamSetupSteps('workers')) {
    for (const id of workers) await clone.ok(ours(args).map((word) => (word === 'ada' ? id : word === 'claude' ? 'demo' : word)));
  }
  return clone;
}

/** The commits of `main` in a repository, with their subjects and Foreman's trailers. */
function commitsOf(repository: string): Array<{ subject: string; trailers: Record<string, string> }> {
  return gitIn(repository, ['log', '--format=%s%x00%(trailers:only,unfold)%x1e', 'main'])
    .split('\x1e')
    .map((record) => record.trim())
    .filter(Boolean)
    .map((record) => {
      const [subject = '', trailers = ''] = record.split('\0');
      const pairs = trailers
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(': ') as [string, string]);
      return { subject, trailers: Object.fromEntries(pairs) };
    });
}

const hostOf = (status: Status, workerId: string): string | undefined =>
  (status.workers.find((worker) => worker.id === workerId) as { host?: string | null } | undefined)?.host ?? undefined;

test(
  'two machines, one queue: machine-a`s owner dies mid-task, machine-b finishes its work, main has every change once',
  { timeout: 150_000 },
  async () => {
    const seed = sandboxPath('seed');
    mkdirSync(seed);
    gitIn(seed, ['init', '--quiet', '-b', 'main']);
    gitIn(seed, ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial']);
    const remote = sandboxPath('remote.git');
    gitIn(sandboxPath(''), ['clone', '--quiet', '--bare', seed, remote]);
    gitIn(remote, ['config', 'core.logAllRefUpdates', 'always']);

    const a = await machine(remote, 'machine-a', ['a1', 'a2']);
    const b = await machine(remote, 'machine-b', ['b1', 'b2']);
    // Both clones see the whole crew, with the machine each worker runs on.
    const seen = await b.status();
    assert.deepEqual(seen.workers.map((worker) => [worker.id, hostOf(seen, worker.id)]).sort(), [
      ['a1', 'machine-a'],
      ['a2', 'machine-a'],
      ['b1', 'machine-b'],
      ['b2', 'machine-b'],
    ]);

    const chainFile = sandboxPath('chain.md');
    writeFileSync(chainFile, chain);
    const added = await a.json<{ children: Array<{ id: string }> }>(['chain', 'add', '--from', chainFile]);
    const [one, two] = added.children.map((child) => child.id);
    assert.ok(one && two, 'two chain children');
    for (const [id, prompt] of Object.entries(freeTasks)) await a.ok(['task', 'add', `Task ${id}`, '--id', id, '--prompt', prompt]);
    const taskIds = [one, two, ...Object.keys(freeTasks)];

    const serveB = await b.serve();
    const serveA = await a.serve();
    let heldByA: string[] = [];
    try {
      // Kill machine-a's owner once its workers are in the middle of tasks.
      const busy = await a.waitFor(
        'machine-a`s workers to hold tasks',
        (status) => status.workers.some((worker) => worker.id.startsWith('a') && worker.state === 'WORKING'),
        40_000,
        serveA,
      );
      heldByA = busy.workers.filter((worker) => worker.id.startsWith('a') && worker.taskId !== null).map((worker) => worker.taskId!);
      await serveA.kill();

      const finished = await reviewUntil(b, (status) => taskIds.every((id) => b.task(status, id).status === 'done'), {
        server: serveB,
        timeoutMs: 90_000,
      });
      for (const id of taskIds) assert.equal(b.task(finished, id).status, 'done', id);
      const transitions = await b.transitions();
      const takenBack = transitions.filter((row: Transition) => /stopped renewing its lease/.test(row.reason ?? ''));
      assert.ok(takenBack.length >= heldByA.length, `machine-a's work was taken back: ${JSON.stringify(takenBack)}`);
    } finally {
      await serveB.stop();
    }
    // Machine-a comes back (and reaps the agents its killed owner left); nothing is left for it to do.
    const back = await a.serve();
    await back.stop();

    // The remote's main holds every change once, reached by fast-forwards only.
    gitIn(b.root, ['fetch', '--quiet', 'origin']);
    const files = gitIn(remote, ['ls-tree', '-r', '--name-only', 'main']).split('\n').sort();
    assert.deepEqual(files, ['chain.txt', 'chain/one.txt', 'chain/two.txt', 'free/1.txt', 'free/2.txt', 'free/3.txt', 'free/4.txt']);
    assert.equal(gitIn(remote, ['show', 'main:chain.txt']), 'one\ntwo');
    const commits = commitsOf(remote);
    assert.deepEqual(
      commits.map((commit) => commit.subject).sort(),
      ['chain step one', 'chain step two', 'free four', 'free one', 'free three', 'free two', 'initial'],
      'each change merged once',
    );
    // Machine-a's tasks were finished on machine-b, under a later attempt.
    for (const id of heldByA) {
      const commit = commits.find((candidate) => candidate.trailers['Foreman-Task'] === id);
      assert.ok(commit, `a commit of ${id}`);
      assert.match(commit.trailers['Foreman-Worker'] ?? '', /^b[12]$/, `${id} finished on machine-b`);
      assert.ok(Number(commit.trailers['Foreman-Attempt']) >= 2, `${id} ran again under a new attempt`);
    }
    assert.equal(await onlyFastForwards(remote), true, 'the remote`s main only ever moved forward');
  },
);

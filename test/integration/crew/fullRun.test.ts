/**
 * A whole crew through `foreman serve`: three workers running the demo agent on a chain of three
 * tasks and four free ones, approved and merged through the CLI as they reach review. Afterwards
 * main holds every change exactly once, every commit names its task, worker and attempt, the chain
 * ran in order, and the exported transitions log validates.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { makeCrew, reviewUntil, sandboxPath } from './crewHarness';

const chain = `# Release steps

- [ ] Step one
  write chain/one.txt one
  append chain.txt one
  commit chain step one
- [ ] Step two
  write chain/two.txt two
  append chain.txt two
  commit chain step two
- [ ] Step three
  write chain/three.txt three
  append chain.txt three
  commit chain step three
`;

/** Free tasks: id → prompt. The last one leaves its edit uncommitted: Foreman commits it, titled by the task. */
const freeTasks: Record<string, string> = {
  'free-1': 'write free/1.txt first\ncommit free one',
  'free-2': 'write free/2.txt second\ncommit free two',
  'free-3': 'write free/3.txt third\nsleep 200\ncommit free three',
  'free-4': 'write free/4.txt fourth',
};

test('three workers run a chain and four free tasks to Done; main has every change once, signed', { timeout: 90_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1', 'w2', 'w3'] });
  const chainFile = sandboxPath('release-chain.md');
  writeFileSync(chainFile, chain);
  const added = await crew.json<{ parent: { id: string }; children: Array<{ id: string; title: string }> }>([
    'chain',
    'add',
    '--from',
    chainFile,
  ]);
  const [one, two, three] = added.children.map((child) => child.id);
  assert.ok(one && two && three, 'three chain children');
  for (const [id, prompt] of Object.entries(freeTasks)) await crew.ok(['task', 'add', `Task ${id}`, '--id', id, '--prompt', prompt]);
  const taskIds = [one, two, three, ...Object.keys(freeTasks)];

  const server = await crew.serve();
  try {
    const finished = await reviewUntil(crew, (status) => taskIds.every((id) => crew.task(status, id).status === 'done'), {
      server,
      timeoutMs: 75_000,
    });
    for (const task of finished.tasks) assert.equal(task.status, 'done', `task ${task.id} (${task.title})`);
    for (const worker of finished.workers) assert.equal(worker.state, 'IDLE', `worker ${worker.id}`);
  } finally {
    await server.stop();
  }

  // Every change exactly once.
  const expectedFiles: Record<string, string> = {
    'chain.txt': 'one\ntwo\nthree\n',
    'chain/one.txt': 'one\n',
    'chain/two.txt': 'two\n',
    'chain/three.txt': 'three\n',
    'free/1.txt': 'first\n',
    'free/2.txt': 'second\n',
    'free/3.txt': 'third\n',
    'free/4.txt': 'fourth\n',
  };
  assert.deepEqual(crew.git(['ls-tree', '-r', '--name-only', 'main']).split('\n').sort(), Object.keys(expectedFiles).sort());
  for (const [file, text] of Object.entries(expectedFiles)) assert.equal(crew.git(['show', `main:${file}`]) + '\n', text, file);

  const subjectOf: Record<string, string> = {
    'chain step one': one,
    'chain step two': two,
    'chain step three': three,
    'free one': 'free-1',
    'free two': 'free-2',
    'free three': 'free-3',
    // Its edit left uncommitted lands titled by its task (and the agent's summary), not as "leftovers".
    'Task free-4': 'free-4',
  };
  const commits = crew
    .git(['log', '--format=%H%x00%s%x00%(trailers:only,unfold)%x1e', 'main'])
    .split('\x1e')
    .map((record) => record.trim())
    .filter(Boolean)
    .map((record) => {
      const [sha, subject, trailers] = record.split('\0') as [string, string, string];
      return {
        sha,
        subject,
        trailers: Object.fromEntries(
          trailers
            .split('\n')
            .filter(Boolean)
            .map((line) => line.split(': ') as [string, string]),
        ),
      };
    });
  assert.deepEqual(
    commits.map((commit) => commit.subject).sort(),
    [...Object.keys(subjectOf), 'initial'].sort(),
    'each commit subject once',
  );

  // Each task commit is signed with its task, the worker that ran it and the attempt that made it.
  // A failed attempt is retried by design (its work kept); when one happened, say why in the output.
  const history = await crew.transitions();
  const workerOf = new Map<string, string>();
  const attemptOf = new Map<string, number>();
  for (const row of history) {
    if (!row.event_type.startsWith('task') || row.trigger !== 'claim') continue;
    workerOf.set(row.entity_id, String(row.metadata?.['workerId']));
    attemptOf.set(row.entity_id, (attemptOf.get(row.entity_id) ?? 0) + 1);
  }
  const failed = history.filter((row) => row.event_type.startsWith('worker') && row.to_state === 'FAILED');
  if (failed.length > 0) console.log(`retried attempts: ${JSON.stringify(failed.map((row) => [row.entity_id, row.trigger, row.reason]))}`);
  for (const commit of commits.filter((candidate) => candidate.subject !== 'initial')) {
    const task = subjectOf[commit.subject]!;
    assert.deepEqual(
      commit.trailers,
      { 'Foreman-Task': task, 'Foreman-Worker': workerOf.get(task), 'Foreman-Attempt': String(attemptOf.get(task)) },
      `trailers of "${commit.subject}"`,
    );
  }

  // The chain in order: each step was claimed only after the one before it was merged (Done).
  const seqOf = (task: string, trigger: string): number => {
    const row = history.find(
      (candidate) => candidate.event_type.startsWith('task') && candidate.entity_id === task && candidate.trigger === trigger,
    );
    assert.ok(row, `no ${trigger} transition for ${task}`);
    return row.seq;
  };
  assert.ok(seqOf(two, 'claim') > seqOf(one, 'complete'), 'step two was claimed after step one was merged');
  assert.ok(seqOf(three, 'claim') > seqOf(two, 'complete'), 'step three was claimed after step two was merged');
  const startOf = (task: string): number => {
    const worker = workerOf.get(task)!;
    const claim = seqOf(task, 'claim');
    return history.find((row) => row.entity_id === worker && row.trigger === 'start' && row.seq > claim)!.seq;
  };
  assert.ok(
    startOf(two) > seqOf(one, 'complete') && startOf(three) > seqOf(two, 'complete'),
    'chain steps started after their predecessor merged',
  );

  await crew.ok(['export']);
  const validated = await crew.foreman(['validate-transitions', '.foreman/transitions.jsonl']);
  assert.equal(validated.code, 0, validated.stdout + validated.stderr);
  assert.match(validated.stdout, /all valid/);
});

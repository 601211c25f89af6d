/**
 * What lands on the base reads as the task's work (issue 27, finding 11): the edits an agent left
 * uncommitted become a commit titled by the task and explained by the agent's own summary, never
 * "Leftovers of …", and a merge or squash commit is titled and explained the same way. The demo
 * agent is a `command` profile with no event stream, so its summary is the tail of its own output,
 * not "pid N exited 0".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CrewRepo, makeCrew, reviewUntil } from './crewHarness';

/** Subject, body (trailers included) and parents of each first-parent commit of main, newest first. */
function mainLog(crew: CrewRepo): Array<{ subject: string; body: string; parents: number }> {
  return crew
    .git(['log', '--first-parent', '--format=%s%x00%b%x00%P%x1e', 'main'])
    .split('\x1e')
    .map((record) => record.trim())
    .filter(Boolean)
    .map((record) => {
      const [subject = '', body = '', parents = ''] = record.split('\0');
      return { subject, body, parents: parents.split(' ').filter(Boolean).length };
    });
}

const noExitSummary = /pid \d+ exited 0/;

test(
  'rebase: the uncommitted edits land as a commit titled by the task, with the agent output as its summary',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    // The second file is left uncommitted: Foreman commits it for the agent.
    await crew.addTask('greet', 'Add the greetings', 'write hello.txt hello\ncommit say hello\nwrite bye.txt bye');
    const server = await crew.serve();
    try {
      const review = await crew.waitForWorker('w1', 'IN_REVIEW', server);
      const summary = crew.worker(review, 'w1').summary;
      // The review summary is what the agent printed last, bounded, not its exit.
      assert.match(summary ?? '', /demo-agent: write bye\.txt\ndemo-agent: done$/);
      assert.doesNotMatch(summary ?? '', noExitSummary);
      await reviewUntil(crew, (status) => crew.task(status, 'greet').status === 'done', { server, timeoutMs: 20_000 });
    } finally {
      await server.stop();
    }
    assert.equal(crew.git(['show', 'main:bye.txt']), 'bye');
    const log = mainLog(crew);
    assert.deepEqual(
      log.map((commit) => commit.subject),
      ['Add the greetings', 'say hello', 'initial'],
    );
    assert.ok(!log.some((commit) => /Leftovers of/.test(commit.subject)), 'no "Leftovers of" commit on main');
    const [leftovers] = log;
    assert.match(leftovers?.body ?? '', /demo-agent: done\n\nForeman-Task: greet\nForeman-Worker: w1\nForeman-Attempt: 1/);
    assert.doesNotMatch(leftovers?.body ?? '', noExitSummary);
  },
);

for (const strategy of ['merge', 'squash'] as const) {
  test(
    `${strategy}: the ${strategy} commit is titled by the task and carries the agent's summary and the trailers`,
    { timeout: 60_000 },
    async () => {
      const crew = await makeCrew({ workers: ['w1'], settings: { mergeStrategy: strategy } });
      await crew.addTask('two', 'Write two files', 'write a.txt one\ncommit step one\nwrite b.txt two');
      const server = await crew.serve();
      try {
        await reviewUntil(crew, (status) => crew.task(status, 'two').status === 'done', { server, timeoutMs: 20_000 });
      } finally {
        await server.stop();
      }
      assert.equal(crew.git(['show', 'main:b.txt']), 'two');
      const [top, ...rest] = mainLog(crew);
      assert.equal(top?.subject, 'Write two files');
      assert.equal(top?.parents, strategy === 'merge' ? 2 : 1);
      assert.match(top?.body ?? '', /demo-agent: done\n\nForeman-Task: two\nForeman-Worker: w1\nForeman-Attempt: 1/);
      assert.deepEqual(
        rest.map((commit) => commit.subject),
        ['initial'],
      );
      // The branch's own commits, reached through the merge's second parent, hold no "Leftovers of" either.
      const all = crew.git(['log', '--format=%s', 'main']).split('\n');
      assert.ok(!all.some((subject) => /Leftovers of/.test(subject)), all.join(' | '));
      // With a merge commit the branch's commits reach main too: the agent's own and the one for its edits.
      const expected =
        strategy === 'merge' ? ['Write two files', 'Write two files', 'initial', 'step one'] : ['Write two files', 'initial'];
      assert.deepEqual([...all].sort(), expected);
    },
  );
}

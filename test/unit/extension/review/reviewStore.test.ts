// The review comments kept per task across a window reload. The workspace state is VS Code's
// (out of reach in a unit test), so a Map-backed stand-in with its get/update shape holds them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReviewStore, type TaskReview, reviewStateKey } from '../../../../src/extension/review/reviewStore';

function memento(initial?: unknown) {
  const values = new Map<string, unknown>(initial === undefined ? [] : [[reviewStateKey, initial]]);
  return {
    values,
    get: (key: string) => values.get(key),
    update: (key: string, value: unknown) => {
      values.set(key, value);
      return Promise.resolve();
    },
  };
}

const review: TaskReview = {
  root: '/work/app',
  taskId: 'greeting',
  workerId: 'ada',
  worktree: '/work/.foreman-worktrees/app/ada',
  threads: [
    {
      id: 'a1b2c3',
      file: 'src/greeting.js',
      startLine: 2,
      endLine: 3,
      comments: ['Use a template literal.'],
      status: 'sent',
      sentAt: 1_700_000_000_000,
      sentCode: ['x'],
    },
    { id: 'd4e5f6', file: 'README.md', startLine: 1, endLine: 1, comments: ['Say how to run it.'], status: 'open' },
  ],
  baselines: { 'src/greeting.js': 'x\n' },
};

test('what is saved is read back as it was; reviews without threads are not kept', async () => {
  const state = memento();
  const warnings: string[] = [];
  const store = new ReviewStore(state, (message) => warnings.push(message));
  assert.deepEqual(store.load(), []);
  await store.save([review, { ...review, taskId: 'empty', threads: [] }]);
  assert.deepEqual(new ReviewStore(state, (message) => warnings.push(message)).load(), [review]);
  assert.deepEqual(warnings, []);
});

test('a saved record this version cannot read is dropped with a warning naming what was wrong', () => {
  const bad = [
    { version: 2, reviews: [] },
    { version: 1, reviews: [{ ...review, taskId: 'Not An Id' }] },
    { version: 1, reviews: [{ ...review, threads: [{ ...review.threads[0], file: '../outside' }] }] },
    { version: 1, reviews: [{ ...review, threads: [{ ...review.threads[0], startLine: 5, endLine: 2 }] }] },
    'garbage',
  ];
  for (const stored of bad) {
    const warnings: string[] = [];
    assert.deepEqual(new ReviewStore(memento(stored), (message) => warnings.push(message)).load(), []);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /^The saved review comments could not be read \(.*\); they were dropped\.$/);
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { taskCommitMessage } from '../../../src/core/taskCommitMessage';

test('a task commit is titled by the task and explained by the summary', () => {
  assert.equal(
    taskCommitMessage({ id: 'login', title: 'Add login' }, '  Added the form.\n\nTests pass.  '),
    'Add login\n\nAdded the form.\n\nTests pass.',
  );
  assert.equal(taskCommitMessage({ id: 'login', title: 'Add login' }, null), 'Add login');
  assert.equal(taskCommitMessage({ id: 'login', title: 'Add login' }, '   '), 'Add login');
});

test('the subject is one bounded line; a task without a title is named by its id', () => {
  assert.equal(taskCommitMessage({ id: 'login', title: '  Add\n  login  ' }), 'Add login');
  assert.equal(taskCommitMessage({ id: 'login', title: '' }), 'task login');
  const subject = taskCommitMessage({ id: 'long', title: 'word '.repeat(40) });
  assert.equal(subject.length, 72);
  assert.ok(subject.endsWith('…'));
});

test('a long summary is cut, so a pasted log does not fill git log', () => {
  const message = taskCommitMessage({ id: 'log', title: 'Logs' }, 'y'.repeat(10_000));
  assert.equal(message.length, 'Logs\n\n'.length + 4000);
  assert.ok(message.endsWith('…'));
});

/**
 * What a pull request's feedback looks like (docs/handoff.md): the badge the trees, the dashboard
 * and `status` show, and the note the comments people left become for the agent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commentsNote, commentsNoteLimit, unsentComments } from '../../../src/engine/pullRequestComments';
import { failureNote } from '../../../src/engine/pullRequestText';
import { cardPullRequest, pullRequestBadge } from '../../../src/shared/pullRequestWords';

const pull = { number: 12, url: 'https://github.example/o/r/pull/12', state: 'open' as const, base: 'main', headSha: 'abc123' };

test('the badge: the number, then what needs a person — failed checks, a conflict, comments not sent — or how it ended', () => {
  assert.equal(pullRequestBadge({ number: 12, state: 'open' }), 'PR #12');
  assert.equal(pullRequestBadge({ number: 12, state: 'open', checks: { state: 'none' }, comments: 0 }), 'PR #12');
  assert.equal(pullRequestBadge({ number: 12, state: 'open', checks: { state: 'pending' } }), 'PR #12 (checks pending)');
  assert.equal(
    pullRequestBadge({ number: 12, state: 'open', checks: { state: 'failure' }, conflict: 'main', comments: 2 }),
    'PR #12 (checks failed, conflicts with main, 2 comments)',
  );
  assert.equal(pullRequestBadge({ number: 3, state: 'open', comments: 1 }), 'PR #3 (1 comment)');
  assert.equal(pullRequestBadge({ number: 12, state: 'merged', checks: { state: 'failure' } }), 'PR #12 merged');
  // The card carries the checks' state alone, and the same words come out.
  const card = cardPullRequest({ number: 12, url: pull.url, state: 'open', checks: { state: 'failure' }, comments: 2 }).pullRequest;
  assert.ok(card);
  assert.equal(pullRequestBadge(card), 'PR #12 (checks failed, 2 comments)');
  assert.deepEqual(cardPullRequest({ number: 1, url: 'javascript:alert(1)', state: 'open' }), {}, 'only http(s) is linked');
});

test('comments become one note: place, author, the code quoted with its line numbers, the comment; what does not fit waits', () => {
  const comments = [
    { id: '1', file: 'src/a.ts', startLine: 2, endLine: 3, body: 'Why?', author: 'alice', code: ['two', 'three'] },
    { id: '2', file: 'src/b.ts', startLine: 1, endLine: 1, body: 'Gone?', author: 'bob', code: undefined },
    { id: '3', file: 'README.md', body: 'The whole file.', author: 'carol', code: [] },
  ];
  const { note, sent } = commentsNote(pull, comments, 'Also my own comment.');
  assert.equal(sent.length, 3);
  assert.match(note, /^Also my own comment\.\n\nReview comments people left on pull request #12/);
  assert.match(note, /1\. src\/a\.ts, lines 2-3 \(alice\):\n```\n2 \| two\n3 \| three\n```\nWhy\?/);
  assert.match(note, /2\. src\/b\.ts, line 1 \(bob\):\n\(the file is not on the branch\)\nGone\?/);
  assert.match(note, /3\. README\.md, the whole file \(carol\):\nThe whole file\./);

  const long = Array.from({ length: 40 }, (_, i) => ({ id: String(i), file: 'x.ts', body: 'y'.repeat(500), author: 'a', code: [] }));
  const bounded = commentsNote(pull, long);
  assert.ok(bounded.note.length <= commentsNoteLimit);
  assert.ok(bounded.sent.length > 0 && bounded.sent.length < long.length, 'the rest wait for the next send');
  assert.deepEqual(
    unsentComments(
      long,
      bounded.sent.map((c) => c.id),
    ).map((c) => c.id),
    long.slice(bounded.sent.length).map((c) => c.id),
  );
});

test('a conflict names the base branch and says to merge it in, not to rebase', () => {
  const note = failureNote(pull, [], 'release/2');
  assert.match(note, /conflicts with its base branch release\/2/);
  assert.match(note, /Merge the latest release\/2 from the remote into this branch \(do not rebase/);
  const both = failureNote(pull, [{ name: 'lint', logTail: 'error' }], 'main');
  assert.match(both, /Check "lint" failed[\s\S]*conflicts with its base branch main/);
});

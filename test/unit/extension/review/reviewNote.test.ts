// Gathering line comments into one note for the agent: the code is quoted from real files in a
// temp git repository's worktree, as Send Review to Agent reads them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { english } from '../../../../src/extension/localizer';
import { formatReviewNote, isRepositoryPath, noteLimit, quoteComments } from '../../../../src/extension/review/reviewNote';

let repo: string;
const greeting = [
  'export function greet(name) {',
  "  return 'Hello, ' + name;",
  '}',
  '',
  'export const shout = (name) => greet(name).toUpperCase();',
  '',
].join('\n');

before(() => {
  repo = mkdtempSync(join(tmpdir(), 'foreman-review-note-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base');
  mkdirSync(join(repo, 'src'));
  // The worktree holds the agent's uncommitted edit too: the quote is what the reviewer saw.
  writeFileSync(join(repo, 'src', 'greeting.js'), greeting);
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'greeting');
  writeFileSync(join(repo, 'src', 'greeting.js'), greeting.replace('Hello', 'Hi'));
});

after(() => rmSync(repo, { recursive: true, force: true }));

test('the commented lines are quoted from the worktree with their line numbers, and each comment follows its code', () => {
  const quoted = quoteComments(repo, [
    { file: 'src/greeting.js', startLine: 2, endLine: 2, comments: ['Use a template literal.'] },
    { file: 'src/greeting.js', startLine: 1, endLine: 3, comments: ['Add a JSDoc.', 'And a test.'] },
  ]);
  assert.deepEqual(quoted[0]?.code, ["  return 'Hi, ' + name;"]);
  const formatted = formatReviewNote(quoted, english);
  assert.ok(formatted.ok);
  assert.equal(
    formatted.note,
    [
      'Review of your changes: 2 comments on lines of the changed files. Address each one; the code quoted is what your worktree held when the review was sent.',
      ['1. src/greeting.js, line 2:', '```', "2 |   return 'Hi, ' + name;", '```', 'Use a template literal.'].join('\n'),
      [
        '2. src/greeting.js, lines 1-3:',
        '```',
        '1 | export function greet(name) {',
        "2 |   return 'Hi, ' + name;",
        '3 | }',
        '```',
        '- Add a JSDoc.',
        '- And a test.',
      ].join('\n'),
    ].join('\n\n'),
  );
});

test('a file gone from the worktree, or lines past its end, are said instead of a quote', () => {
  const quoted = quoteComments(repo, [
    { file: 'src/gone.js', startLine: 1, endLine: 1, comments: ['Why was this removed?'] },
    { file: 'src/greeting.js', startLine: 40, endLine: 41, comments: ['Past the end.'] },
  ]);
  assert.equal(quoted[0]?.code, undefined);
  const formatted = formatReviewNote(quoted, english);
  assert.ok(formatted.ok);
  assert.match(formatted.note, /1\. src\/gone\.js, line 1:\n\(the file is no longer in the worktree\)\nWhy was this removed\?/);
  assert.match(formatted.note, /2\. src\/greeting\.js, lines 40-41:\n\(these lines are no longer in the file\)\nPast the end\./);
});

test('a long range is quoted by its head, and long lines are clipped', () => {
  const long = Array.from({ length: 40 }, (_, index) => (index === 0 ? 'x'.repeat(300) : `line ${index + 1}`)).join('\n');
  writeFileSync(join(repo, 'long.txt'), long);
  const [quoted] = quoteComments(repo, [{ file: 'long.txt', startLine: 1, endLine: 40, comments: ['Split this.'] }]);
  assert.ok(quoted);
  const formatted = formatReviewNote([quoted], english);
  assert.ok(formatted.ok);
  assert.ok(formatted.note.includes(` 1 | ${'x'.repeat(200)}…\n`), 'the first line clipped at 200 characters');
  assert.ok(formatted.note.includes('15 | line 15\n… 25 more lines\n```'), formatted.note);
  assert.ok(!formatted.note.includes('line 16'));
});

test('nothing to send, or more than a note holds, is refused with what to do', () => {
  const none = formatReviewNote([], english);
  assert.deepEqual(none, { ok: false, message: 'There are no open review comments to send.' });
  const many = quoteComments(repo, [{ file: 'src/greeting.js', startLine: 1, endLine: 1, comments: ['y'.repeat(noteLimit)] }]);
  const tooLong = formatReviewNote(many, english);
  assert.equal(tooLong.ok, false);
  assert.match(
    tooLong.ok ? '' : tooLong.message,
    /^The review is \d+ characters with its quoted code; a note to the agent holds at most 10000\. Send fewer comments/,
  );
});

test('only paths inside the repository are read', () => {
  for (const bad of ['../outside.txt', '/etc/passwd', 'src/../../x', 'a\\b', '', 'src//x', './x']) {
    assert.equal(isRepositoryPath(bad), false, bad);
    assert.throws(
      () => quoteComments(repo, [{ file: bad, startLine: 1, endLine: 1, comments: ['x'] }]),
      /not a path inside the repository/,
    );
  }
  assert.equal(isRepositoryPath('src/greeting.js'), true);
});

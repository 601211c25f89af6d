/**
 * An agent without an event stream is summed up in its own words: the last non-empty lines of its
 * output (bounded), without Foreman's own log lines, terminal escapes or redrawn progress lines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastLines } from '../../../src/infra/agents/runVerdict';

test('the last non-empty lines, without Foreman log lines', () => {
  const output = 'one\n\n  \ntwo\n# foreman 2026-01-01T00:00:00Z something\nthree\n\n';
  assert.equal(lastLines(output, 2, 1000), 'two\nthree');
  assert.equal(lastLines(output, 10, 1000), 'one\ntwo\nthree');
  assert.equal(lastLines('', 5, 1000), '');
  assert.equal(lastLines('\n\n', 5, 1000), '');
});

test('colours are dropped and a line redrawn with carriage returns keeps what it showed last', () => {
  assert.equal(lastLines('\x1b[32mPASS\x1b[0m all 12 tests\r\n', 1, 1000), 'PASS all 12 tests');
  assert.equal(lastLines('progress 10%\rprogress 50%\rprogress 100%\ndone\n', 2, 1000), 'progress 100%\ndone');
});

test('bounded from the start: the end is where an agent says what it did', () => {
  const said = lastLines(`${'x'.repeat(50)}\nthe end`, 2, 20);
  assert.equal(said.length, 20);
  assert.ok(said.startsWith('…') && said.endsWith('the end'), said);
});

test('a tail that fills the read window drops its first, partial line', () => {
  const output = `${'p'.repeat(4000)}\n${'q'.repeat(200)}\nlast`;
  assert.equal(lastLines(output, 5, 10_000), `${'q'.repeat(200)}\nlast`);
});

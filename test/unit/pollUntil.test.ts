/** The one real-time wait of the tests: it returns what the condition found, and its timeout says what it waited for. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollUntil } from '../support/pollUntil';

test('resolves with the first answer that is not undefined, null or false', async () => {
  const answers = [undefined, null, false, 0, 7];
  let looks = 0;
  const found = await pollUntil(() => answers[looks++], { what: 'an answer', intervalMs: 0 });
  assert.equal(found, 0, 'zero is an answer');
  assert.equal(looks, 4);
});

test('an async condition is awaited', async () => {
  let looks = 0;
  assert.equal(await pollUntil(() => Promise.resolve(++looks === 3 && 'third'), { what: 'the third look', intervalMs: 0 }), 'third');
});

test('the timeout error names what was awaited and the detail', async () => {
  await assert.rejects(
    pollUntil(() => false, { what: 'w1 in IN_REVIEW', timeoutMs: 0, intervalMs: 0, detail: () => 'last status: WORKING' }),
    (error: Error) => error.message === 'timed out after 0 ms waiting for w1 in IN_REVIEW\nlast status: WORKING',
  );
});

test('a condition that throws ends the wait at once', async () => {
  let looks = 0;
  await assert.rejects(
    pollUntil(
      () => {
        looks++;
        throw new Error('broken check');
      },
      { what: 'nothing', timeoutMs: 60_000 },
    ),
    /broken check/,
  );
  assert.equal(looks, 1);
});

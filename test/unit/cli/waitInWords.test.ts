/** How long a person was given to answer a tool call, as the agent is told (`foreman hook claude`). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitInWords } from '../../../src/cli/commands/claudeHook';

describe('waitInWords', () => {
  it('says a wait under a minute in seconds (or ms), never "0 min"', () => {
    const cases: Array<[number, string]> = [
      [1, '1 ms'],
      [999, '999 ms'],
      [1_000, '1 s'],
      [1_500, '2 s'],
      [29_400, '29 s'],
      [59_000, '59 s'],
      [60_000, '1 min'],
      [90_000, '1.5 min'],
      [30 * 60_000, '30 min'],
    ];
    for (const [ms, words] of cases) assert.equal(waitInWords(ms), words, String(ms));
  });
});

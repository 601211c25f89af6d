import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgv, parseInteger, parseNumber } from '../../../src/cli/argv';

const spec = { dir: 'string', json: 'boolean', note: 'string' } as const;

describe('cli argv parser', () => {
  it('reads positionals, --flag value, --flag=value and booleans', () => {
    const parsed = parseArgv(['w1', '--note', 'hello there', '--dir=/tmp/x', '--json', '-1'], spec);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.positionals, ['w1', '-1']);
    assert.deepEqual(
      [...parsed.value.flags],
      [
        ['note', 'hello there'],
        ['dir', '/tmp/x'],
        ['json', true],
      ],
    );
  });

  it('takes everything after -- as positionals, and a value that starts with a dash written --flag=value', () => {
    const parsed = parseArgv(['--note=--json', '--', '--not-a-flag', '-x'], spec);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.positionals, ['--not-a-flag', '-x']);
    assert.equal(parsed.value.flags.get('note'), '--json');
  });

  for (const [tokens, code] of [
    [['--bogus'], 'unknownFlag'],
    [['-x'], 'unknownFlag'],
    [['--note'], 'missingValue'],
    [['--note', '--json'], 'missingValue'],
    [['--json=yes'], 'badFlag'],
    [['--note', 'a', '--note', 'b'], 'repeatedFlag'],
  ] as const) {
    it(`refuses ${tokens.join(' ')} (${code})`, () => {
      const parsed = parseArgv(tokens, spec);
      assert.ok(!parsed.ok && parsed.code === code);
    });
  }

  it('parses numbers strictly', () => {
    assert.deepEqual(parseInteger('n', '42'), { ok: true, value: 42 });
    for (const text of ['abc', '4.2', '', ' 4', '0x10', '1e3', '99999999999999999999'])
      assert.ok(!parseInteger('max-attempts', text).ok, text);
    const refusal = parseInteger('max-attempts', 'abc');
    assert.ok(!refusal.ok && refusal.message.startsWith('max-attempts: expected an integer'));
    assert.deepEqual(parseNumber('p', '0.5'), { ok: true, value: 0.5 });
    for (const text of ['', 'half', 'Infinity', '0x1', '.']) assert.ok(!parseNumber('progress', text).ok, text);
  });
});

/**
 * The shell splitter behind the permission gate: every simple command a string runs is a part, and
 * what it cannot read with confidence is refused (the gate then asks a person). Table-driven, with
 * the hostile forms a model might produce to slip a command past a prefix rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitCommand } from '../../../src/core/shellCommand';

const words = (command: string): string[][] | string => {
  const split = splitCommand(command);
  return split.ok ? split.parts.map((part) => [...part.words]) : `refused: ${split.reason}`;
};

describe('splitCommand', () => {
  const cases: Array<[string, string[][] | RegExp]> = [
    ['npm test', [['npm', 'test']]],
    ['  npm   test  ', [['npm', 'test']]],
    ['npm test && curl x', [['npm', 'test'], ['curl', 'x']]],
    ['npm test || curl x', [['npm', 'test'], ['curl', 'x']]],
    ['npm test; curl x', [['npm', 'test'], ['curl', 'x']]],
    ['npm test | tee out', [['npm', 'test'], ['tee', 'out']]],
    ['npm test |& tee out', [['npm', 'test'], ['tee', 'out']]],
    ['npm test & curl x', [['npm', 'test'], ['curl', 'x']]],
    ['npm test\ncurl x', [['npm', 'test'], ['curl', 'x']]],
    ['(cd sub && curl x)', [['cd', 'sub'], ['curl', 'x']]],
    ['npm test && (curl x; (rm -rf y))', [['npm', 'test'], ['curl', 'x'], ['rm', '-rf', 'y']]],
    ['echo $(curl x)', [['curl', 'x'], ['echo', '<command substitution>']]],
    ['echo "$(curl x)"', [['curl', 'x'], ['echo', '<command substitution>']]],
    ['echo `curl x`', [['curl', 'x'], ['echo', '<command substitution>']]],
    ['echo "a `curl x` b"', [['curl', 'x'], ['echo', 'a <command substitution> b']]],
    ['diff <(curl x) file', [['curl', 'x'], ['diff', '<process substitution>', 'file']]],
    ["echo 'a && curl x'", [['echo', 'a && curl x']]],
    ['echo "a; curl x"', [['echo', 'a; curl x']]],
    ['echo a\\;curl', [['echo', 'a;curl']]],
    ['c""url x', [['curl', 'x']]],
    ["c''url x", [['curl', 'x']]],
    ['\\curl x', [['curl', 'x']]],
    ['npm test 2>&1 | tail', [['npm', 'test'], ['tail']]],
    ['npm test > out.txt 2> err.txt', [['npm', 'test']]],
    ['npm test &> /dev/null', [['npm', 'test']]],
    ['npm test # && curl x', [['npm', 'test']]],
    ['{ npm test; curl x; }', [['npm', 'test'], ['curl', 'x']]],
    ['FOO=1 npm test', [['FOO=1', 'npm', 'test']]],
    ['echo "unterminated', /^refused: an unterminated double quote/],
    ["echo 'unterminated", /^refused: an unterminated single quote/],
    ['echo $(curl x', /^refused: an unclosed parenthesis/],
    ['echo `curl x', /^refused: an unterminated backtick/],
    ['npm test)', /^refused: an unbalanced closing parenthesis/],
    ['cat <<EOF\nrm -rf /\nEOF', /^refused: a heredoc/],
    ["$'\\x63url' x", /^refused: ANSI-C quoting/],
    ['echo ${X:-$(curl x)}', /^refused: an expansion inside \$\{…\}/],
    ['echo $(( $(curl x) + 1 ))', /^refused: an expansion inside arithmetic/],
    ['npm test >', /^refused: a redirection without a target/],
    ['echo trailing\\', /^refused: a trailing backslash/],
  ];
  for (const [command, expected] of cases) {
    it(JSON.stringify(command), () => {
      const actual = words(command);
      if (expected instanceof RegExp) assert.match(String(actual), expected);
      else assert.deepEqual(actual, expected);
    });
  }

  it('keeps redirection targets apart from words, and descriptors out of both', () => {
    const split = splitCommand('npm test > out.txt 2>&1 < in.txt >>/tmp/log');
    assert.ok(split.ok);
    assert.deepEqual(split.parts, [{ words: ['npm', 'test'], redirects: ['out.txt', 'in.txt', '/tmp/log'], dynamic: false }]);
  });

  it('marks a part whose words depend on the shell at run time', () => {
    const dynamic = (command: string) => {
      const split = splitCommand(command);
      assert.ok(split.ok, command);
      return split.parts.map((part) => part.dynamic);
    };
    assert.deepEqual(dynamic('npm test $FLAGS'), [true]);
    assert.deepEqual(dynamic('npm test "${FLAGS}"'), [true]);
    assert.deepEqual(dynamic('npm test $1'), [true]);
    assert.deepEqual(dynamic('echo $(date) && npm test'), [false, true, false]);
    assert.deepEqual(dynamic("npm test '$FLAGS'"), [false], 'single quotes expand nothing');
    assert.deepEqual(dynamic('echo cost: 5$'), [false], 'a lone dollar is a character');
  });
});

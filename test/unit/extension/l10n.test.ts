// Holds the extension's localisation together (docs/vscode.md#localisation): the l10n bundle has
// exactly the keys the code asks for, package.json's `%key%`s are all in package.nls.json, and no
// notification in src/extension shows words that skipped `vscode.l10n.t`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { bundleFile, bundleText, extractMessages } from '../../../scripts/l10n.mjs';
import { english } from '../../../src/extension/localizer';

const root = join(__dirname, '..', '..', '..');
const { messages, problems } = extractMessages(root);
const bundle = JSON.parse(readFileSync(bundleFile, 'utf8')) as Record<string, string>;

test('every l10n key is a string literal; values go in as {0}, {1}…', () => {
  assert.ok(messages.size >= 150, `only ${messages.size} keys found: is the extraction broken?`);
  assert.deepEqual(problems, [], 'a key built at run time cannot be in the bundle');
});

test('the bundle holds every key the code uses and nothing else (npm run l10n writes it)', () => {
  const missing = [...messages.keys()].filter((key) => !(key in bundle));
  const unused = Object.keys(bundle).filter((key) => !messages.has(key));
  assert.deepEqual(
    missing.map((key) => `${key}  (${messages.get(key)?.join(', ') ?? ''})`),
    [],
    'in the code, not in the bundle: run npm run l10n',
  );
  assert.deepEqual(unused, [], 'in the bundle, used nowhere: run npm run l10n');
  assert.equal(readFileSync(bundleFile, 'utf8'), bundleText(messages.keys()), 'the bundle is not sorted as npm run l10n writes it');
});

test('every %key% of package.json is in package.nls.json', () => {
  const texts = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const keys = [...readFileSync(join(root, 'package.json'), 'utf8').matchAll(/"%([^%"]+)%"/g)].map((match) => match[1]!);
  assert.ok(keys.length >= 30, `only ${keys.length} %keys% in package.json`);
  assert.deepEqual(
    keys.filter((key) => texts[key] === undefined),
    [],
    'package.json names these, package.nls.json lacks them',
  );
});

/** Calls `show{Information,Warning,Error}Message(words…)` whose message is written out in the call. */
function literalMessages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const isWords = (node: ts.Node): boolean =>
    ts.isStringLiteral(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isTemplateExpression(node) ||
    (ts.isBinaryExpression(node) && (isWords(node.left) || isWords(node.right))) ||
    (ts.isParenthesizedExpression(node) && isWords(node.expression)) ||
    (ts.isConditionalExpression(node) && (isWords(node.whenTrue) || isWords(node.whenFalse)));
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      /^show(Information|Warning|Error)Message$/.test(node.expression.name.text) &&
      node.arguments[0] &&
      isWords(node.arguments[0])
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${relative(root, file)}:${line}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no notification in src/extension shows words that skipped vscode.l10n.t', () => {
  const files = ts.sys.readDirectory(join(root, 'src', 'extension'), ['.ts']);
  assert.ok(files.length >= 30, `only ${files.length} files looked at`);
  assert.deepEqual(files.flatMap(literalMessages), [], "wrap the message in vscode.l10n.t('…', values)");
});

test('the check catches a literal message, a template literal and a joined string', () => {
  const probe = join(root, 'test', 'fixtures', 'l10nProbe.ts.txt');
  assert.deepEqual(literalMessages(probe), [
    'test/fixtures/l10nProbe.ts.txt:3',
    'test/fixtures/l10nProbe.ts.txt:4',
    'test/fixtures/l10nProbe.ts.txt:5',
    'test/fixtures/l10nProbe.ts.txt:6',
  ]);
});

test('without VS Code, a Localizer gives the English text with its placeholders filled once', () => {
  assert.equal(english.t('{0} is {1} on "{2}" now', 'ada', 'WORKING', 'Add {1}'), 'ada is WORKING on "Add {1}" now');
  assert.equal(english.t('{0} and {0}', 'x'), 'x and x');
  assert.equal(english.t('left {1} as is', 'only one'), 'left {1} as is');
});

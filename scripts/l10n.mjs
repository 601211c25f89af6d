// The extension's l10n bundle (l10n/bundle.l10n.json) made from the code: every `vscode.l10n.t('…')`
// (or `l10n.t('…')`, a Localizer handed to a module without vscode) in src/ is a key, found with the
// TypeScript parser rather than a regex, so a key split over lines, escaped quotes or a comment that
// looks like a call are read as the compiler reads them.
//   node scripts/l10n.mjs           writes the bundle (npm run l10n)
//   node scripts/l10n.mjs --check   exits 1 when the bundle is not the one the code needs
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The `.ts` files under `folder`, sorted so the output never depends on the file system's order. */
function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

/** `vscode.l10n.t(…)` or `l10n.t(…)`: a call of `t` on something named `l10n`. */
function isL10nCall(node) {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
  const { expression: owner, name } = node.expression;
  if (name.text !== 't') return false;
  return (ts.isIdentifier(owner) && owner.text === 'l10n') || (ts.isPropertyAccessExpression(owner) && owner.name.text === 'l10n');
}

/**
 * Every l10n key in the `.ts` files under `root`/src: `messages` maps each key to where it is used
 * ("src/…:line"); `problems` lists calls whose key is not a plain string literal (a template literal
 * with `${}` or a variable), which no bundle can hold — pass the values as `{0}` arguments instead.
 */
export function extractMessages(root = projectRoot) {
  const messages = new Map();
  const problems = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('l10n')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const where = (node) =>
      `${relative(root, file).split('\\').join('/')}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    const visit = (node) => {
      if (isL10nCall(node)) {
        const [key] = node.arguments;
        if (key && (ts.isStringLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key))) {
          messages.set(key.text, [...(messages.get(key.text) ?? []), where(node)]);
        } else {
          problems.push(`${where(node)}: ${node.getText(source).slice(0, 80)}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { messages, problems };
}

/** The bundle's text for these keys: sorted, each English message its own translation. */
export function bundleText(keys) {
  const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify(Object.fromEntries(sorted.map((key) => [key, key])), null, 2)}\n`;
}

export const bundleFile = join(projectRoot, 'l10n', 'bundle.l10n.json');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { messages, problems } = extractMessages();
  if (problems.length) {
    console.error(`l10n keys must be string literals (values go in as {0}, {1}…):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  const wanted = bundleText(messages.keys());
  const current = (() => {
    try {
      return readFileSync(bundleFile, 'utf8');
    } catch {
      return '';
    }
  })();
  if (process.argv.includes('--check')) {
    if (current !== wanted) {
      console.error(`${relative(projectRoot, bundleFile)} is out of date: run npm run l10n`);
      process.exit(1);
    }
  } else if (current !== wanted) {
    writeFileSync(bundleFile, wanted);
    console.log(`${relative(projectRoot, bundleFile)}: ${messages.size} messages`);
  }
}

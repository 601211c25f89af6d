/**
 * The .vsix holds what the installed extension loads at run time (issue 30): every file the build
 * wrote to dist/ (so a new bundle cannot be forgotten again, as dist/foreman-pg.js once was), every
 * file a bundle names to load beside itself (a worker thread, the wasm, a child process's script),
 * the CLI launcher and what it requires, and no source map. The list is vsce's own (`listFiles`,
 * the same walk `vsce package` does over .vscodeignore), after the build `npm test` runs first.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';

const root = join(__dirname, '..', '..', '..');
const dist = join(root, 'dist');
const vsce = createRequire(__filename)('@vscode/vsce') as {
  listFiles(options: { cwd: string; dependencies: boolean; packageManager: string }): Promise<string[]>;
};

/** What the build wrote: every file in dist/ but the source maps. */
const builtFiles = (): string[] => readdirSync(dist).filter((name) => !name.endsWith('.map'));

/** File names a bundle mentions that are files of dist/: what it loads beside itself at run time. */
function namedBeside(bundle: string, inDist: ReadonlySet<string>): string[] {
  const text = readFileSync(join(dist, bundle), 'utf8');
  const named = new Set<string>();
  for (const match of text.matchAll(/["'`/\\]([\w.-]+\.(?:js|wasm|css))["'`]/g)) {
    const name = match[1]!;
    if (inDist.has(name) && name !== bundle) named.add(name);
  }
  return [...named];
}

describe('the .vsix package', () => {
  let packaged: Set<string>;
  before(async () => {
    packaged = new Set(await vsce.listFiles({ cwd: root, dependencies: false, packageManager: 'none' }));
  });

  it('holds every file the build writes to dist/, and no source map', () => {
    const built = builtFiles();
    assert.ok(built.includes('extension.js') && built.includes('cli.js'), `dist/ is not built: ${built.join(', ')}`);
    const missing = built.filter((name) => !packaged.has(`dist/${name}`));
    assert.deepEqual(missing, [], 'built but not packaged');
    const maps = [...packaged].filter((file) => file.endsWith('.map'));
    assert.deepEqual(maps, [], 'source maps do not belong in the package');
  });

  it('holds every file a packaged bundle loads beside itself (workers, wasm, child scripts)', () => {
    const inDist = new Set(builtFiles());
    const bundles = [...packaged].filter((file) => file.startsWith('dist/') && file.endsWith('.js')).map((file) => file.slice(5));
    const loads = new Map(bundles.map((bundle) => [bundle, namedBeside(bundle, inDist)]));
    // The ones this test exists for: if a bundle stops naming them, this list must change knowingly.
    assert.ok(loads.get('extension.js')?.includes('foreman-pg.js'), 'extension.js loads the PostgreSQL worker');
    assert.ok(loads.get('extension.js')?.includes('store-replica.js'), 'extension.js loads the replica worker');
    assert.ok(loads.get('extension.js')?.includes('sql-wasm.wasm'), 'extension.js loads the wasm');
    const missing = [...loads].flatMap(([bundle, names]) =>
      names.filter((name) => !packaged.has(`dist/${name}`)).map((name) => `${bundle} → ${name}`),
    );
    assert.deepEqual(missing, [], 'loaded at run time but not packaged');
  });

  it("holds the manifest's entry point, the CLI launcher and what the launcher requires", () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string };
    assert.ok(packaged.has(manifest.main.replace(/^\.\//, '')), `main ${manifest.main}`);
    assert.ok(packaged.has('bin/foreman'));
    const launcher = readFileSync(join(root, 'bin', 'foreman'), 'utf8');
    for (const [, required] of launcher.matchAll(/require\('\.\.\/([^']+)'\)/g)) assert.ok(packaged.has(required!), required);
    for (const file of ['package.json', 'package.nls.json', 'l10n/bundle.l10n.json', 'README.md', 'CHANGELOG.md', 'LICENSE'])
      assert.ok(packaged.has(file), file);
  });
});

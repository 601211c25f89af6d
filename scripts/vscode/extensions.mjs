// Loads extensions from their source folders into code-server: a symlink named
// `<publisher>.<name>-<version>` in --extensions-dir is exactly the layout of an installed extension,
// so code-server picks it up (and writes its extensions.json) without packaging a .vsix.
// The `extensionDevelopmentPath` URL payload is not an alternative for interactive use: code-server
// only honours it together with `extensionTestsPath` (tried: the extension never loads).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { requireCodeServer } from './paths.mjs';

/** Reads an extension folder's manifest; throws a clear error when it is not one. */
export function readManifest(folder) {
  const manifestPath = join(folder, 'package.json');
  if (!existsSync(manifestPath)) throw new Error(`${folder} has no package.json: not an extension folder`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (!manifest.publisher || !manifest.name || !manifest.version) {
    throw new Error(`${manifestPath} needs publisher, name and version`);
  }
  return { ...manifest, id: `${manifest.publisher}.${manifest.name}` };
}

/** Empties `extensionsDir` and links each extension folder into it; returns the extension ids. */
export function linkExtensions(extensionsDir, extensionFolders) {
  // Start from an empty dir: a stale link or extensions.json could load an old version.
  rmSync(extensionsDir, { recursive: true, force: true });
  mkdirSync(extensionsDir, { recursive: true });
  return extensionFolders.map((given) => {
    const folder = resolve(given);
    const manifest = readManifest(folder);
    const { main } = manifest;
    if (main && !existsSync(resolve(folder, main)) && !existsSync(resolve(folder, `${main}.js`))) {
      console.warn(`${manifest.id}: main (${main}) does not exist yet: build the extension first`);
    }
    symlinkSync(folder, join(extensionsDir, `${manifest.id}-${manifest.version}`), 'dir');
    return manifest.id;
  });
}

/**
 * Installs a packaged extension into an empty `extensionsDir` with code-server's own
 * `--install-extension`, as a person installing the .vsix would: nothing of the checkout is used.
 * Returns the installed extension's id and folder.
 */
export function installVsix(extensionsDir, vsixPath, { userDataDir } = {}) {
  rmSync(extensionsDir, { recursive: true, force: true });
  mkdirSync(extensionsDir, { recursive: true });
  const { node, server } = requireCodeServer();
  const args = [server.entry, '--extensions-dir', extensionsDir, '--install-extension', resolve(vsixPath)];
  if (userDataDir) args.push('--user-data-dir', userDataDir);
  const result = spawnSync(node.node, args, { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(`code-server --install-extension ${vsixPath} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}${result.stderr}`);
  }
  const folders = readdirSync(extensionsDir).filter((name) => !name.startsWith('.') && name !== 'extensions.json');
  if (folders.length !== 1) throw new Error(`expected one installed extension in ${extensionsDir}, found: ${folders.join(', ') || 'none'}`);
  const folder = join(extensionsDir, folders[0]);
  return { id: readManifest(folder).id, folder };
}

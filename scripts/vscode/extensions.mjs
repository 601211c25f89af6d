// Loads extensions from their source folders into code-server: a symlink named
// `<publisher>.<name>-<version>` in --extensions-dir is exactly the layout of an installed extension,
// so code-server picks it up (and writes its extensions.json) without packaging a .vsix.
// The `extensionDevelopmentPath` URL payload is not an alternative for interactive use: code-server
// only honours it together with `extensionTestsPath` (tried: the extension never loads).
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

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

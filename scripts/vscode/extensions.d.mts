// Types for extensions.mjs.
export function readManifest(
  folder: string,
): { id: string; publisher: string; name: string; version: string; main?: string } & Record<string, unknown>;
export function linkExtensions(extensionsDir: string, extensionFolders: string[]): string[];
export function installVsix(extensionsDir: string, vsixPath: string, options?: { userDataDir?: string }): { id: string; folder: string };

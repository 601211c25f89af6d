// Types for paths.mjs.
export const repoRoot: string;
export const NODE_VERSION: string;
export const CODE_SERVER_VERSION: string;
export const APT_PACKAGES: string[];
export function cacheDir(): string;
export function nodePaths(cache?: string): { pkg: string; prefix: string; dir: string; bin: string; node: string };
export function codeServerPaths(cache?: string): { prefix: string; dir: string; entry: string; marker: string };
export function chromiumPath(): string | undefined;
export function requireCodeServer(cache?: string): {
  node: ReturnType<typeof nodePaths>;
  server: ReturnType<typeof codeServerPaths>;
};
export function newRunDir(prefix: string, cache?: string): string;

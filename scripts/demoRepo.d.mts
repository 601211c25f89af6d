/** Where `npm start` keeps the demo repository: `$XDG_CACHE_HOME` (or `~/.cache`)`/foreman-demo/demo-repo`. */
export function defaultDemoDir(): string;
/** Returns the demo repository's path (default `defaultDemoDir()`); builds it on first use. */
export function ensureDemoRepo(root: string, dir?: string): string;
/** Removes the worktrees a deleted demo at `dir` left beside it, and only those; returns their paths. */
export function removeOrphanedWorktrees(dir: string): string[];

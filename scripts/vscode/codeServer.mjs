// Starts the provisioned code-server (real VS Code: workbench + Node extension host) for one run.
// Everything it writes stays in the run's folders (user data, extensions, XDG dirs), and stop()
// ends the whole process group: killing only code-server's pid leaves the extension host alive.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { watchGroup } from './parentWatch.mjs';
import { requireCodeServer } from './paths.mjs';

/** Settings that keep the workbench quiet and deterministic for people and screenshots. */
export function quietSettings({ colorTheme = 'Default Dark Modern', workspaceTrust = false } = {}) {
  return {
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.colorTheme': colorTheme,
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'git.openRepositoryInParentFolders': 'never',
    // With trust on, open untrusted folders in Restricted Mode without the modal dialog, so a test
    // can assert what Restricted Mode looks like (and trust the folder itself when it wants to).
    ...(workspaceTrust ? { 'security.workspace.trust.startupPrompt': 'never' } : {}),
  };
}

/** A free TCP port on 127.0.0.1 (ask the kernel, then release it for code-server). */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * @param {object} options
 * @param {string} options.userDataDir   VS Code user data (settings.json goes to User/ inside it)
 * @param {string} options.extensionsDir installed extensions
 * @param {string} [options.runDir]      folder for XDG dirs, config and log (default: userDataDir's parent)
 * @param {number} [options.port]        default: a free port
 * @param {string} [options.folder]      only used to build `url` (code-server itself opens what the URL says)
 * @param {boolean} [options.workspaceTrust] false (default): --disable-workspace-trust
 * @param {string} [options.colorTheme]
 * @param {object} [options.settings]    extra user settings, applied last
 * @param {boolean} [options.keepUserSettings] keep what settings.json already holds (a persistent profile)
 * @param {string[]} [options.extraArgs] e.g. ['--vscode-option', 'enable-smoke-test-driver']
 * @param {object} [options.env]         extra environment for code-server and the extension host
 * @param {boolean} [options.verbose]    echo code-server's output (always written to <runDir>/code-server.log)
 * @param {number} [options.timeoutMs]   how long to wait for /healthz (default 60 s)
 */
export async function startCodeServer(options) {
  const { node, server } = requireCodeServer();
  const userDataDir = resolve(options.userDataDir);
  const extensionsDir = resolve(options.extensionsDir);
  const runDir = resolve(options.runDir ?? dirname(userDataDir));
  const port = options.port ?? (await freePort());
  const workspaceTrust = options.workspaceTrust ?? false;

  const xdg = Object.fromEntries(
    ['CONFIG', 'DATA', 'CACHE', 'STATE'].map((kind) => [`XDG_${kind}_HOME`, join(runDir, 'xdg', kind.toLowerCase())]),
  );
  for (const dir of [join(userDataDir, 'User'), extensionsDir, ...Object.values(xdg)]) mkdirSync(dir, { recursive: true });
  writeSettings(join(userDataDir, 'User', 'settings.json'), {
    defaults: quietSettings({ colorTheme: options.colorTheme, workspaceTrust }),
    overrides: options.settings,
    keepExisting: options.keepUserSettings,
  });
  // Our own config file: without --config, code-server writes one with a password under $HOME.
  const config = join(runDir, 'code-server.yaml');
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  const args = [
    server.entry,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--config',
    config,
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    ...(options.extraArgs ?? []),
  ];
  const started = Date.now();
  const log = createWriteStream(join(runDir, 'code-server.log'));
  // Node 24 runs code-server (it refuses other versions). detached: its own process group, so
  // stop() can end code-server, the extension host and anything the extension spawned.
  const child = spawn(node.node, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...xdg, ...options.env },
  });
  let tail = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      log.write(chunk);
      tail = (tail + chunk).slice(-4000);
      if (options.verbose) process.stderr.write(chunk);
    });
  }
  let exited = null;
  const exitPromise = new Promise((resolveExit) => child.once('exit', (code, signal) => resolveExit((exited = code ?? signal))));

  // If our process dies without calling stop(), take the group down with us.
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.on('exit', onExit);
  // A SIGKILL of this process runs no handler at all: a watchdog outside both groups ends code-server's.
  watchGroup(process.pid, child.pid);
  // A signal that nobody else handles kills us without 'exit' firing: clean up, then die of it as
  // before. When the caller handles the signal itself (open.mjs, the shim), it calls stop().
  const onSignal = (signal) => {
    if (process.listenerCount(signal) > 0) return;
    killGroup('SIGKILL');
    process.kill(process.pid, signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, onSignal);

  let stopped;
  const stop = () =>
    (stopped ??= (async () => {
      process.off('exit', onExit);
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      killGroup('SIGTERM');
      // Wait for the whole group to go (kill(-pgid, 0) fails once no member is left), then force it.
      for (let waited = 0; waited < 5000 && killGroup(0); waited += 100) await sleep(100);
      killGroup('SIGKILL');
      await Promise.race([exitPromise, sleep(1000)]);
      log.end();
    })());

  const url = `http://127.0.0.1:${port}/`;
  try {
    await waitForHealth(url, options.timeoutMs ?? 60_000, () => exited);
  } catch (error) {
    await stop();
    throw new Error(`${error.message}\n--- code-server output (${join(runDir, 'code-server.log')}) ---\n${tail}`);
  }
  // Slashes stay readable in the printed URL; everything else is encoded.
  const folderUrl = options.folder ? `${url}?folder=${encodeURIComponent(resolve(options.folder)).replaceAll('%2F', '/')}` : url;
  return { url: folderUrl, baseUrl: url, port, pid: child.pid, runDir, startedInMs: Date.now() - started, stop, exited: exitPromise };
}

/**
 * Writes settings.json: our defaults, then (for a persistent profile) what the user set before,
 * then the caller's overrides. A file we cannot parse (VS Code allows comments) is left alone.
 */
function writeSettings(path, { defaults, overrides = {}, keepExisting = false }) {
  let existing = {};
  if (keepExisting && existsSync(path)) {
    try {
      existing = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      return;
    }
  }
  writeFileSync(path, `${JSON.stringify({ ...defaults, ...existing, ...overrides }, null, 2)}\n`);
}

async function waitForHealth(url, timeoutMs, exitedWith) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitedWith() !== null) throw new Error(`code-server exited early (${exitedWith()})`);
    try {
      const response = await fetch(new URL('healthz', url), { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`code-server did not answer ${url}healthz within ${timeoutMs / 1000}s`);
}

const sleep = (ms) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

// Stands in for the VS Code executable that @vscode/test-electron's runTests() launches, on machines
// where no desktop VS Code can be downloaded. It takes the same arguments
//   [folder] --extensionDevelopmentPath=… --extensionTestsPath=… [--user-data-dir=…] [other flags]
// and runs the suite in code-server's real extension host instead:
//   code-server --vscode-option enable-smoke-test-driver  +  headless chromium on
//   /?folder=<abs>&payload=[["extensionDevelopmentPath",…],["extensionTestsPath",…]]
// The workbench reports the suite's output through window.codeAutomationLog and its result through
// window.codeAutomationExit(code); we forward the output and exit with that code.
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchChromium } from './browser.mjs';
import { startCodeServer } from './codeServer.mjs';
import { newRunDir } from './paths.mjs';

const VALUE_FLAGS = new Set(['extensionDevelopmentPath', 'extensionTestsPath', 'user-data-dir', 'extensions-dir']);

/** Parses the VS Code CLI subset we need; other flags (--no-sandbox, --skip-welcome, …) are ignored. */
export function parseArgs(argv) {
  const parsed = { extensionDevelopmentPath: [], folders: [], ignored: [], disableWorkspaceTrust: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      parsed.folders.push(resolve(arg));
      continue;
    }
    const [flag, inline] = splitFlag(arg.slice(2));
    if (flag === 'disable-workspace-trust') parsed.disableWorkspaceTrust = true;
    else if (VALUE_FLAGS.has(flag)) {
      const value = resolve(inline ?? argv[++i]);
      if (flag === 'extensionDevelopmentPath') parsed.extensionDevelopmentPath.push(value);
      else parsed[flag] = value;
    } else parsed.ignored.push(arg);
  }
  return parsed;
}

function splitFlag(text) {
  const at = text.indexOf('=');
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** The URL that makes the workbench load the extension(s) under development and run the suite. */
export function testUrl(baseUrl, { folder, extensionDevelopmentPath, extensionTestsPath, extensionEnvironment }) {
  // The remote extension host sees the server's file system: vscode-remote://<any authority>/<abs path>.
  const remote = (path) => `vscode-remote://remote${path}`;
  const payload = [
    ...extensionDevelopmentPath.map((path) => ['extensionDevelopmentPath', remote(path)]),
    ...(extensionTestsPath ? [['extensionTestsPath', remote(extensionTestsPath)]] : []),
    ...(extensionEnvironment ? [['extensionEnvironment', JSON.stringify(extensionEnvironment)]] : []),
  ];
  const query = [
    folder
      ? `${folder.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(folder).replaceAll('%2F', '/')}`
      : 'ew=true',
    `payload=${encodeURIComponent(JSON.stringify(payload))}`,
  ];
  return `${baseUrl}?${query.join('&')}`;
}

// The workbench logs its own life through the same channel as the suite's console. Without
// FOREMAN_VSCODE_VERBOSE=1 we drop what is clearly the workbench talking: its connection chatter, and
// errors whose stack lies inside the workbench bundle (e.g. the offline extension gallery lookups).
const CHATTER = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket/,
  /^\[reconnection-grace-time\]/,
  /^Updating additional builtin extensions cache/,
  /^\[Service Worker\]/,
  /^\[AgentHost/,
  /^\[AccountPolicyGate\]/,
  /^Creation of workbench contribution/,
];
function isWorkbenchChatter(type, line) {
  if (CHATTER.some((pattern) => pattern.test(line))) return true;
  return (type === 'error' || type === 'warn') && line.includes('/static/out/vs/');
}

/** Runs one suite; resolves to the process exit code (the suite's own: 0 pass, 1 fail). */
export async function main() {
  const args = parseArgs(process.argv.slice(2));
  const verbose = process.env.FOREMAN_VSCODE_VERBOSE === '1';
  if (!args.extensionTestsPath) {
    console.error('test-electron-shim: --extensionTestsPath is required (this stands in for VS Code only in test runs)');
    return 2;
  }
  if (verbose && args.ignored.length) console.error(`test-electron-shim: ignoring ${args.ignored.join(' ')}`);

  // A fresh run folder per run: parallel runs must not share user data. Kept when the run fails.
  const runDir = newRunDir('test');
  // runTests passes shared defaults (.vscode-test/user-data, .vscode-test/extensions); parallel runs
  // must not share them, so they are only used when FOREMAN_VSCODE_SHARED_PROFILE=1 asks for it.
  const shared = process.env.FOREMAN_VSCODE_SHARED_PROFILE === '1';
  const userDataDir = (shared && args['user-data-dir']) || join(runDir, 'user-data');
  const extensionsDir = (shared && args['extensions-dir']) || join(runDir, 'extensions');
  // Workspace trust: runTests always passes --disable-workspace-trust; a test that needs Restricted
  // Mode sets FOREMAN_VSCODE_WORKSPACE_TRUST=1 (through runTests' extensionTestsEnv).
  const workspaceTrust = process.env.FOREMAN_VSCODE_WORKSPACE_TRUST === '1' || !args.disableWorkspaceTrust;

  const timeoutMs = Number(process.env.FOREMAN_VSCODE_TEST_TIMEOUT_MS ?? 10 * 60_000);
  let server;
  let browser;
  let code = 1;
  const cleanUp = async () => {
    await browser?.close().catch(() => {});
    await server?.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
  }
  try {
    server = await startCodeServer({
      userDataDir,
      extensionsDir,
      runDir,
      workspaceTrust,
      extraArgs: ['--vscode-option', 'enable-smoke-test-driver'],
      verbose,
    });
    browser = await launchChromium();
    const page = await browser.newPage();
    let finish;
    const finished = new Promise((resolveFinish) => (finish = resolveFinish));
    // Must be exposed before the workbench loads: it looks them up once at startup.
    await page.exposeFunction('codeAutomationLog', (type, logArgs) => {
      const line = (Array.isArray(logArgs) ? logArgs : [logArgs]).map(String).join(' ');
      if (!verbose && isWorkbenchChatter(type, line)) return;
      (type === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (exitCode) => finish(Number(exitCode)));
    if (verbose) page.on('console', (message) => console.error(`[browser ${message.type()}] ${message.text()}`));
    page.on('pageerror', (error) => console.error(`[workbench error] ${error.message}`));
    // A dead page never calls codeAutomationExit: fail now rather than at the timeout.
    page.on('crash', () => finish('crash'));
    server.exited.then((how) => finish(`code-server exited (${how})`));

    const loading = Date.now();
    await page.goto(testUrl(server.baseUrl, { ...args, folder: args.folders[0] }));
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const result = await finished;
    clearTimeout(timer);
    if (typeof result === 'number') code = result;
    else if (result === 'timeout') console.error(`test-electron-shim: the suite did not finish within ${timeoutMs / 1000}s`);
    else console.error(`test-electron-shim: the run ended early: ${result}`);
    console.error(
      `test-electron-shim: code-server up in ${server.startedInMs} ms; workbench + suite ${Date.now() - loading} ms; exit ${result}`,
    );
  } catch (error) {
    console.error(`test-electron-shim: ${error.message}`);
  } finally {
    await cleanUp();
  }
  if (code === 0 && process.env.FOREMAN_VSCODE_KEEP !== '1') rmSync(runDir, { recursive: true, force: true });
  else console.error(`test-electron-shim: logs kept in ${runDir}`);
  return code;
}

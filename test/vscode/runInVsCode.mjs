#!/usr/bin/env node
// Runs an in-host test suite inside a real VS Code through @vscode/test-electron's runTests(), so the
// same entry works everywhere:
//   - FOREMAN_VSCODE_EXECUTABLE=/path/to/code  → that VS Code (a desktop install, or any shim);
//   - FOREMAN_VSCODE=download                  → runTests downloads VS Code as usual (needs internet + a display);
//   - FOREMAN_VSCODE=code-server               → scripts/vscode/test-electron-shim (code-server + chromium);
//   - unset (auto): download when update.code.visualstudio.com resolves and a display exists, else the shim.
// The suite is TypeScript; the extension host cannot load it through tsx, so we bundle it first.
//
// Usage: node test/vscode/runInVsCode.mjs --suite test/vscode/harness --extension test/fixtures/harness-extension
//          [--folder <workspace folder>] [--trust] [--env KEY=VALUE ...]
// Last line printed: "in-vscode: N passed, N failed" (N counted from the suite's own summary lines).
import { lookup } from 'node:dns/promises';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const shim = join(repoRoot, 'scripts/vscode/test-electron-shim');

/** Bundles a suite (a folder with index.ts, or a file) into out/vscode-tests/<name>/index.js. */
export async function bundleSuite(suite) {
  const { build } = await import('esbuild');
  const entry = statSync(suite).isDirectory() ? join(suite, 'index.ts') : suite;
  const name = statSync(suite).isDirectory() ? basename(suite) : basename(suite).replace(/\.[^.]+$/, '');
  const outfile = join(repoRoot, 'out', 'vscode-tests', name, 'index.js');
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return outfile;
}

/** Which VS Code runs the suite: an explicit executable, the normal download, or the code-server shim. */
export async function chooseExecutable(env = process.env) {
  if (env.FOREMAN_VSCODE_EXECUTABLE) return { how: 'FOREMAN_VSCODE_EXECUTABLE', path: resolve(env.FOREMAN_VSCODE_EXECUTABLE) };
  const mode = env.FOREMAN_VSCODE ?? 'auto';
  if (mode === 'download') return { how: 'download', path: undefined };
  if (mode === 'code-server') return { how: 'code-server', path: shim };
  // Electron needs a display on Linux; without one a download would only fail later.
  const display = process.platform !== 'linux' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  const online = await Promise.race([
    lookup('update.code.visualstudio.com').then(
      () => true,
      () => false,
    ),
    new Promise((resolveLookup) => setTimeout(() => resolveLookup(false), 3000)),
  ]);
  return online && display ? { how: 'download', path: undefined } : { how: 'code-server', path: shim };
}

/**
 * Runs one suite; resolves to { code, passed, failed }. `env` reaches the extension host;
 * `trust: true` runs with workspace trust on (code-server only: runTests always disables it for
 * a desktop VS Code).
 */
export async function runInVsCode({ suite, extension, folder, env = {}, trust = false }) {
  const { runTests } = (await import('@vscode/test-electron')).default;
  const extensionTestsPath = await bundleSuite(resolve(suite));
  const executable = await chooseExecutable();
  console.log(
    `in-vscode: running ${suite} in ${executable.how === 'code-server' ? 'code-server (via the test-electron shim)' : (executable.path ?? 'a downloaded VS Code')}`,
  );

  // runTests forwards the child's output to our stdout; tee it to count the suite's summary lines.
  let output = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    output += String(chunk);
    return write(chunk, ...rest);
  };
  let code;
  try {
    code = await runTests({
      vscodeExecutablePath: executable.path,
      extensionDevelopmentPath: resolve(extension),
      extensionTestsPath,
      launchArgs: folder ? [resolve(folder)] : [],
      extensionTestsEnv: { ...env, ...(trust ? { FOREMAN_VSCODE_WORKSPACE_TRUST: '1' } : {}) },
    });
  } catch (error) {
    code = typeof error?.code === 'number' ? error.code : 1;
    console.error(`in-vscode: ${error.message}`);
  } finally {
    process.stdout.write = write;
  }
  const counts = [...output.matchAll(/^# in-vscode .*?: (\d+) passed, (\d+) failed$/gm)];
  const passed = counts.reduce((sum, match) => sum + Number(match[1]), 0);
  // A run that crashed before reporting (or whose exit code disagrees) must not read as green.
  const failed = counts.reduce((sum, match) => sum + Number(match[2]), 0) || (code === 0 ? 0 : 1);
  return { code, passed, failed };
}

async function main() {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string' },
      extension: { type: 'string' },
      folder: { type: 'string' },
      trust: { type: 'boolean', default: false },
      env: { type: 'string', multiple: true, default: [] },
    },
  });
  if (!values.suite || !values.extension) {
    console.error('usage: node test/vscode/runInVsCode.mjs --suite <dir|file> --extension <dir> [--folder <dir>] [--trust] [--env K=V]');
    return 2;
  }
  for (const path of [values.suite, values.extension, values.folder].filter(Boolean)) {
    if (!existsSync(path)) throw new Error(`${path} does not exist`);
  }
  const env = Object.fromEntries(values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  const result = await runInVsCode({ ...values, env });
  console.log(`in-vscode: ${result.passed} passed, ${result.failed} failed`);
  return result.code === 0 && result.failed === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}

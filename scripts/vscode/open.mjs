#!/usr/bin/env node
// Opens a folder in code-server (the real VS Code workbench) with extensions loaded from source
// folders, prints the URL and runs until Ctrl-C. The last step of `npm start` on machines without a
// desktop VS Code.
//
// Usage: node scripts/vscode/open.mjs <folder> --extension <dir> [--extension <dir>…]
//          [--port N] [--theme "Default Light Modern"] [--workspace-trust] [--verbose]
//          [--reconnection-grace-time SECONDS]
// Environment: FOREMAN_OPEN_PROFILE (the persistent VS Code profile; default <cache>/open).
// It stops code-server when its parent process dies, however it died (see parentWatch.mjs).
//
// The extension is loaded from its folder (a symlink in --extensions-dir, see extensions.mjs): rebuild
// it and run "Developer: Reload Window" in the browser to pick up the change. (A .vsix would have to
// be re-packaged and re-installed on every change.)
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startCodeServer } from './codeServer.mjs';
import { linkExtensions } from './extensions.mjs';
import { onParentGone } from './parentWatch.mjs';
import { cacheDir } from './paths.mjs';

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      extension: { type: 'string', multiple: true, default: [] },
      port: { type: 'string' },
      theme: { type: 'string' },
      'workspace-trust': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'reconnection-grace-time': { type: 'string' },
    },
  });
  const folder = positionals[0] && resolve(positionals[0]);
  if (!folder || !existsSync(folder)) {
    console.error('usage: node scripts/vscode/open.mjs <folder> --extension <dir> [--port N] [--theme NAME] [--workspace-trust]');
    return 2;
  }

  // One persistent profile for interactive use: settings and UI state survive restarts.
  const runDir = process.env.FOREMAN_OPEN_PROFILE ? resolve(process.env.FOREMAN_OPEN_PROFILE) : join(cacheDir(), 'open');
  const extensionsDir = join(runDir, 'extensions');
  const ids = linkExtensions(extensionsDir, values.extension);
  const portFromEnv = values.port ?? process.env.FOREMAN_VSCODE_PORT;
  const server = await startCodeServer({
    port: portFromEnv ? Number(portFromEnv) : undefined,
    userDataDir: join(runDir, 'user-data'),
    extensionsDir,
    runDir,
    folder,
    // An explicit --theme beats whatever the persistent profile had.
    settings: values.theme ? { 'workbench.colorTheme': values.theme } : {},
    keepUserSettings: true,
    workspaceTrust: values['workspace-trust'],
    verbose: values.verbose,
    extraArgs: values['reconnection-grace-time'] ? ['--reconnection-grace-time', values['reconnection-grace-time']] : [],
  });
  console.log(`open: extensions loaded: ${ids.join(', ') || '(none)'}; log: ${join(runDir, 'code-server.log')}`);
  console.log(`Foreman is running in VS Code at ${server.url}`);
  console.log('Press Ctrl-C to stop.');

  let stopping = false;
  const shutdown = async (code) => {
    // A second signal (Ctrl-C reaches `npm start` and us, and npm start passes it on) must not kill
    // us halfway: code-server runs in its own process group and would outlive us.
    if (stopping) return;
    stopping = true;
    console.log('\nopen: stopping code-server…');
    await server.stop();
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void shutdown(0));
  onParentGone(() => void shutdown(0));
  const exited = await server.exited;
  if (stopping) return 0; // Ctrl-C: shutdown() finishes the job
  console.error(`open: code-server exited (${exited}); see ${join(runDir, 'code-server.log')}`);
  return 1;
}

process.exitCode = await main();

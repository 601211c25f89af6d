#!/usr/bin/env node
// `npm start`: build, make the demo repository, and open it in a real VS Code with Foreman loaded:
// a desktop `code` when one is installed, otherwise the project's own code-server on 127.0.0.1.
// Environment: FOREMAN_USE_CODE_SERVER=1 (code-server even when `code` exists), FOREMAN_VSCODE_PORT
// (a fixed port), FOREMAN_DEMO_DIR (where the demo repository lives; default .demo/demo-repo).
import { spawnSync, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ensureDemoRepo } from './demoRepo.mjs';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const step = (message) => console.log(`start: ${message}`);

step('building the extension, the CLI and the webview…');
if (spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(1);

step('preparing the demo repository…');
const demo = ensureDemoRepo(root, process.env.FOREMAN_DEMO_DIR ? resolve(process.env.FOREMAN_DEMO_DIR) : undefined);
step(`demo repository: ${demo} (delete it to start over)`);

const desktop = spawnSync('code', ['--version'], { stdio: 'ignore' });
if (desktop.status === 0 && !process.env.FOREMAN_USE_CODE_SERVER) {
  step('opening it in VS Code…');
  spawn('code', ['--extensionDevelopmentPath', root, demo], { stdio: 'inherit', detached: true }).unref();
} else {
  step('no desktop VS Code found; provisioning code-server (first run takes a few minutes)…');
  if (spawnSync(process.execPath, [join(root, 'scripts/vscode/provision.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(1);
  const open = spawn(process.execPath, [join(root, 'scripts/vscode/open.mjs'), demo, '--extension', root], { stdio: 'inherit' });
  // open.mjs owns code-server and stops it on SIGINT/SIGTERM; pass ours on and wait for it, so that
  // ending `npm start` (Ctrl-C, or a kill of this process alone) never leaves code-server running.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => open.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal));
  open.on('exit', (code) => process.exit(code ?? 1));
}

#!/usr/bin/env node
// `npm start`: build, make the demo repository, and open it in a real VS Code with Foreman loaded:
// a desktop `code` when one is installed, otherwise the project's own code-server on 127.0.0.1.
import { spawnSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureDemoRepo } from './demoRepo.mjs';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const step = (message) => console.log(`start: ${message}`);

step('building the extension, the CLI and the webview…');
if (spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(1);

step('preparing the demo repository…');
const demo = ensureDemoRepo(root);
step(`demo repository: ${demo}`);

const desktop = spawnSync('code', ['--version'], { stdio: 'ignore' });
if (desktop.status === 0 && !process.env.FOREMAN_USE_CODE_SERVER) {
  step('opening it in VS Code…');
  spawn('code', ['--extensionDevelopmentPath', root, demo], { stdio: 'inherit', detached: true }).unref();
} else {
  step('no desktop VS Code found; provisioning code-server (first run takes a few minutes)…');
  if (spawnSync(process.execPath, [join(root, 'scripts/vscode/provision.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(1);
  const open = spawn(process.execPath, [join(root, 'scripts/vscode/open.mjs'), demo, '--extension', root], { stdio: 'inherit' });
  open.on('exit', (code) => process.exit(code ?? 0));
}

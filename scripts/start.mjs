#!/usr/bin/env node
// `npm start`: build, make the demo repository, and open it in a real VS Code with Foreman loaded:
// a desktop `code` when one is installed, otherwise the project's own code-server on 127.0.0.1.
// Environment: FOREMAN_USE_CODE_SERVER=1 (code-server even when `code` exists), FOREMAN_VSCODE_PORT
// (a fixed port), FOREMAN_DEMO_DIR (where the demo repository lives; default
// ~/.cache/foreman-demo/demo-repo: outside this project, so the editor does not take the project's
// tsconfig.json and files for the demo's), FOREMAN_OPEN_PROFILE (code-server's VS Code profile).
// Ending it any way, a SIGKILL of this process included, leaves nothing running: open.mjs stops
// code-server when its parent (this process) is gone, and code-server's group has a watchdog too.
// Foreman's agents run in groups of their own, each with a watchdog of its own that stops the agent
// and saves its work as a wip ref once the window's extension host (their owner) is gone
// (src/infra/agents/ownerWatch.ts): stopping code-server is enough to stop them.
import { spawnSync, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ensureDemoRepo } from './demoRepo.mjs';
import { onParentGone } from './vscode/parentWatch.mjs';

/**
 * How long code-server keeps the extension host of a window whose connection dropped (a closed or
 * crashed tab) waiting for it to come back. Its default is 3 hours (5 minutes once another window
 * connects), during which that host still owns Foreman; a reconnect after this only reloads.
 */
const reconnectionGraceSeconds = 30;

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
  step('no desktop VS Code found; opening code-server (built once per machine into ~/.cache/foreman: 10–20 minutes the first time, instant after)…');
  if (spawnSync(process.execPath, [join(root, 'scripts/vscode/provision.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(1);
  const open = spawn(
    process.execPath,
    [join(root, 'scripts/vscode/open.mjs'), demo, '--extension', root, '--reconnection-grace-time', String(reconnectionGraceSeconds)],
    { stdio: 'inherit' },
  );
  // open.mjs owns code-server and stops it on SIGINT/SIGTERM; pass ours on and wait for it, so that
  // ending `npm start` (Ctrl-C, or a kill of this process alone) never leaves code-server running.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => open.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal));
  // npm killed with SIGKILL sends us nothing: we notice it is gone and stop the same way. Under npm
  // our parent is its `sh -c`, which outlives npm, so watch npm (the grandparent) too.
  onParentGone(() => open.kill('SIGTERM'), { grandparent: Boolean(process.env.npm_lifecycle_event) });
  open.on('exit', (code) => process.exit(code ?? 1));
}

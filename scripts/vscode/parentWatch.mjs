// Parent-death checks for the processes `npm start` runs. Linux's PR_SET_PDEATHSIG is out of reach
// from Node, so a child polls: when its parent dies it is reparented (to init or a subreaper) and
// `process.ppid` changes. A process group alone is not enough: a SIGKILL of the launcher reaches
// nobody else, and code-server runs in a group of its own.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How often a watcher looks; the leftovers live at most this long after their parent is gone. */
export const watchIntervalMs = 500;

/** Calls `onGone` once when this process's parent exits. The timer never keeps the process alive. */
export function onParentGone(onGone) {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, watchIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Starts a small detached process that ends the process group `pgid` (SIGTERM, then SIGKILL after
 * `graceMs`) as soon as process `ownerPid` is gone, and exits by itself once the group is gone. It
 * runs in a group of its own, so a kill of the owner's group does not take it down too.
 */
export function watchGroup(ownerPid, pgid, graceMs = 5000) {
  const script = fileURLToPath(new URL('./groupWatchdog.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, String(ownerPid), String(pgid), String(graceMs)], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid;
}

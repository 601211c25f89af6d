// Parent-death checks for the processes `npm start` runs. Linux's PR_SET_PDEATHSIG is out of reach
// from Node, so a child polls: when its parent dies it is reparented (to init or a subreaper) and
// `process.ppid` changes. A process group alone is not enough: a SIGKILL of the launcher reaches
// nobody else, and code-server runs in a group of its own.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** How often a watcher looks; the leftovers live at most this long after their parent is gone. */
export const watchIntervalMs = 500;

/**
 * Calls `onGone` once when this process's parent exits, or, with `grandparent`, the parent's parent
 * (`npm start` runs us through `sh -c`: killing npm orphans the shell, not us). The timer never
 * keeps the process alive.
 */
export function onParentGone(onGone, { grandparent = false } = {}) {
  const parent = process.ppid;
  const above = grandparent ? parentOf(parent) : undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent && (above === undefined || above <= 1 || exists(above))) return;
    clearInterval(timer);
    onGone();
  }, watchIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The parent pid of `pid` where /proc tells (Linux); undefined elsewhere. */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** kill(pid, 0): whether the process exists (EPERM: it does, as another user's). */
export function exists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
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

#!/usr/bin/env node
// Usage: node groupWatchdog.mjs <ownerPid> <pgid> <graceMs>   (started by parentWatch.mjs watchGroup)
// Ends process group <pgid> when <ownerPid> is gone; exits when the group is gone.
import { exists, watchIntervalMs } from './parentWatch.mjs';

const [ownerPid, pgid, graceMs] = process.argv.slice(2).map(Number);
if (![ownerPid, pgid, graceMs].every((n) => Number.isSafeInteger(n) && n > 0)) {
  console.error('usage: node groupWatchdog.mjs <ownerPid> <pgid> <graceMs>');
  process.exit(2);
}

const signalGroup = (signal) => {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is gone already.
  }
};

const timer = setInterval(() => {
  if (!exists(-pgid)) process.exit(0);
  if (exists(ownerPid)) return;
  clearInterval(timer);
  signalGroup('SIGTERM');
  const deadline = Date.now() + graceMs;
  const finish = setInterval(() => {
    if (exists(-pgid) && Date.now() < deadline) return;
    clearInterval(finish);
    signalGroup('SIGKILL');
    process.exit(0);
  }, 100);
}, watchIntervalMs);

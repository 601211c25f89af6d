/**
 * CPU seconds a PostgreSQL server has used so far, from /proc: the postmaster's own and that of its
 * reaped children (backends that have ended), plus every live child's (the backends serving the
 * bench's connections, the WAL writer…). The difference over a phase is what the server spent on it,
 * so a bench can set the client's and the server's CPU per operation side by side.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cpuOf } from './procfs';

function parentOf(pid: string): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    // Ended between the listing and the read: its time is in its parent's reaped children now.
    return undefined;
  }
}

export function serverCpuSeconds(dataDir: string): number {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const own = cpuOf(postmaster);
  let total = own.own + own.children;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || parentOf(entry) !== postmaster) continue;
    try {
      total += cpuOf(Number(entry)).own;
    } catch {
      // Ended meanwhile: counted in the postmaster's reaped children.
    }
  }
  return total;
}

/**
 * Process liveness and group signals for launched agents. "Alive" means running, not merely
 * present: where nothing reaps orphans (a container whose pid 1 is not an init), an agent's
 * finished grandchildren linger as zombies, and a zombie must not count as a live agent — nor keep
 * a cancelled process group looking alive forever. Linux answers from /proc; elsewhere signal 0.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Whether /proc answers for processes (Linux); elsewhere only signal 0 is available. */
export const procAvailable = process.platform === 'linux';

/** What /proc/<pid>/stat says of a process. */
export interface ProcessStat {
  /** R, S, D, Z (zombie), X (dead), … */
  readonly state: string;
  readonly processGroup: number;
  /** Clock ticks after boot at which it started (field 22): with the boot id, unique to this process. */
  readonly startTicks: string;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and ')'. */
export function readStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 of stat(5), so field N is fields[N - 3].
  return { state: fields[0] ?? '', processGroup: Number(fields[2]), startTicks: fields[19] ?? '' };
}

/** Signal 0 checks existence without touching the process; EPERM means it exists but is not ours. */
function exists(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while `pid` runs; false once it has exited, even if it lingers unreaped as a zombie. */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (!exists(pid)) return false;
  if (!procAvailable) return true;
  const stat = readStat(pid);
  return stat !== undefined && isRunning(stat);
}

/** Neither a zombie nor dead. */
export function isRunning(stat: ProcessStat): boolean {
  return stat.state !== 'Z' && stat.state !== 'X';
}

/** Pids of the group's running processes, lazily (Linux only; none elsewhere). */
export function* groupMembers(groupId: number): Generator<number> {
  if (!procAvailable || !Number.isInteger(groupId) || groupId <= 1) return;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = readStat(pid);
    if (stat && stat.processGroup === groupId && isRunning(stat)) yield pid;
  }
}

/** True while any process of the group `groupId` (the leader's pid, as we spawn detached) still runs. */
export function isGroupAlive(groupId: number): boolean {
  if (!Number.isInteger(groupId) || groupId <= 1) return false;
  if (!exists(-groupId)) return false;
  if (!procAvailable) return true;
  return groupMembers(groupId).next().done !== true;
}

/**
 * Sends `signal` to every process of the group. Returns false when the group is already gone;
 * other failures (EPERM) are real problems and are thrown.
 */
export function signalGroup(groupId: number, signal: NodeJS.Signals): boolean {
  // -1 would signal every process we may signal, -0 our own group: never let a bad pid get there.
  if (!Number.isInteger(groupId) || groupId <= 1) throw new Error(`refusing to signal process group ${groupId}`);
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

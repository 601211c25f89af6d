/**
 * Which process is an agent, beyond its pid. A record in `.foreman/agents/` outlives its owner, and
 * by the time the next owner reads it the pid may belong to anything (after a reboot, or once pids
 * wrap). Signalling that pid's group would kill an unrelated program, so an orphan is only signalled
 * when the live process is proven to be the agent and nothing readable contradicts it.
 *
 * Proof, on Linux: the start time (/proc/<pid>/stat field 22) and boot id recorded at launch, or —
 * for records of older versions, which hold only the pid — `FOREMAN_WORKER_ID=<worker>` in
 * /proc/<pid>/environ, which the supervisor gives every agent. Contradictions: another boot, another
 * start time, a leader that no longer leads its own group (agents are spawned detached, pgid = pid),
 * an environment without the marker, a cwd outside the worktree it was started in.
 *
 * Without /proc (macOS, Windows) nothing can prove it, so the choice is conservative: only a record
 * with launch facts is acted on, and only while its leader and group live and the launch was after
 * the last boot. A pid reused within the same boot cannot be told apart there; a record of an older
 * version is never signalled.
 */
import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { uptime } from 'node:os';
import { sep } from 'node:path';
import { z } from 'zod';
import { groupMembers, isAlive, isGroupAlive, isRunning, procAvailable, readStat } from './processes';

/** What a launch records of its agent process; all optional, as records of older versions have none of it. */
export const agentIdentitySchema = z.object({
  /** Clock ticks after boot at which the process started (/proc/<pid>/stat field 22). */
  startTicks: z.string().optional(),
  /** /proc/sys/kernel/random/boot_id at launch. */
  bootId: z.string().optional(),
  /** The process group at launch; the pid, as agents are spawned detached. */
  processGroup: z.number().int().optional(),
  /** The worktree it was started in, resolved as the kernel reports a cwd. */
  cwd: z.string().optional(),
  /** Epoch ms of the launch; on any platform a process running since before the last boot is not it. */
  launchedAt: z.number().optional(),
});
export type AgentIdentity = z.infer<typeof agentIdentitySchema>;

/** Whether the live process `pid` is the recorded agent, with the evidence or the reason it is not. */
export type AgentVerdict = { readonly ours: true; readonly evidence: string } | { readonly ours: false; readonly reason: string };

/** Clock adjustments between launch and check must not make a live agent look older than the boot. */
const bootSlackMs = 60_000;

/** Read right after spawn, when the child has exec'd in its worktree and its own group. */
export function identify(pid: number, worktree: string, now = Date.now()): AgentIdentity {
  const stat = procAvailable ? readStat(pid) : undefined;
  const bootId = procAvailable ? readBootId() : undefined;
  const cwd = (procAvailable ? readCwd(pid) : undefined) ?? resolved(worktree);
  return {
    ...(stat ? { startTicks: stat.startTicks, processGroup: stat.processGroup } : {}),
    ...(bootId ? { bootId } : {}),
    cwd,
    launchedAt: now,
  };
}

/** Decides whether the group of `pid` may be signalled as the orphaned agent of `workerId`. */
export function verifyAgent(pid: number, workerId: string, identity: AgentIdentity, now = Date.now()): AgentVerdict {
  const marker = `FOREMAN_WORKER_ID=${workerId}`;
  if (!procAvailable) return verifyWithoutProc(pid, identity, now);
  const bootId = readBootId();
  if (identity.bootId !== undefined && bootId !== undefined && identity.bootId !== bootId) {
    return notOurs(`the machine restarted since the launch (boot id ${bootId}, recorded ${identity.bootId})`);
  }
  if (identity.bootId === undefined && startedBeforeBoot(identity, now)) return notOurs('the machine restarted since the launch');
  const stat = readStat(pid);
  if (stat && identity.startTicks !== undefined && stat.startTicks !== identity.startTicks) {
    return notOurs(`pid ${pid} is another process now (started at tick ${stat.startTicks}, the agent at ${identity.startTicks})`);
  }
  if (!stat || !isRunning(stat)) return verifyLeaderless(pid, marker, identity, stat !== undefined);
  if (stat.processGroup !== pid) return notOurs(`pid ${pid} no longer leads its own process group (it is in group ${stat.processGroup})`);
  const environment = readEnvironment(pid);
  if (environment !== undefined && !environment.includes(marker)) return notOurs(`pid ${pid} has no ${marker} in its environment`);
  const cwd = readCwd(pid);
  if (cwd !== undefined && identity.cwd !== undefined && !isWithin(cwd, identity.cwd)) {
    return notOurs(`pid ${pid} runs in ${cwd}, not in the worktree ${identity.cwd}`);
  }
  if (identity.startTicks !== undefined) return { ours: true, evidence: 'same start time and boot' };
  if (environment !== undefined) return { ours: true, evidence: `${marker} in its environment` };
  return notOurs(`nothing proves pid ${pid} is the agent (the record has no start time and its environment is unreadable)`);
}

/**
 * The leader exited (or is an unreaped zombie) while others of its group still run. A zombie with
 * the recorded start time proves the group; otherwise one member must carry the marker.
 */
function verifyLeaderless(pid: number, marker: string, identity: AgentIdentity, zombie: boolean): AgentVerdict {
  if (zombie && identity.startTicks !== undefined) return { ours: true, evidence: 'its exited leader has the same start time' };
  for (const member of groupMembers(pid)) {
    if (readEnvironment(member)?.includes(marker)) return { ours: true, evidence: `process ${member} of the group has ${marker}` };
  }
  return notOurs(`the leader ${pid} is gone and no process left in its group shows ${marker}`);
}

function verifyWithoutProc(pid: number, identity: AgentIdentity, now: number): AgentVerdict {
  if (identity.launchedAt === undefined)
    return notOurs(`the record of pid ${pid} predates identity checks, and there is no /proc to prove it`);
  if (startedBeforeBoot(identity, now)) return notOurs('the machine restarted since the launch');
  if (!isAlive(pid) || !isGroupAlive(pid)) return notOurs(`the leader ${pid} is gone, so its group cannot be checked without /proc`);
  return { ours: true, evidence: 'nothing contradicts it (no /proc: start time not checked)' };
}

function startedBeforeBoot(identity: AgentIdentity, now: number): boolean {
  return identity.launchedAt !== undefined && identity.launchedAt < now - uptime() * 1000 - bootSlackMs;
}

function notOurs(reason: string): AgentVerdict {
  return { ours: false, reason };
}

function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Undefined when unreadable (another user's process, or gone). */
function readEnvironment(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

function readCwd(pid: number): string | undefined {
  try {
    // A deleted worktree still shows, with this suffix.
    return readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
  } catch {
    return undefined;
  }
}

function resolved(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

/** The worktree itself or a folder inside it (an agent may change directory within its worktree). */
function isWithin(folder: string, root: string): boolean {
  return folder === root || folder.startsWith(root.endsWith(sep) ? root : root + sep);
}

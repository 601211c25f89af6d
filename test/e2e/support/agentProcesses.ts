// What the UI tests with real agents share: a profile's string-only env, and the process groups of
// the agents a window launched, to end after it (a failed step leaves one waiting for an answer).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Only what a string-valued profile `env` may hold. */
export function stringsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * The process groups of the agents launched for the Foreman folder `root`: they run in groups of
 * their own, which outlive code-server's, and so do the hooks they started. Their pids are in
 * `.foreman/agents/`; their hooks are found as their children.
 */
export function agentGroups(root: string): number[] {
  const dir = join(root, '.foreman', 'agents');
  const pids = existsSync(dir)
    ? readdirSync(dir).flatMap((name) => {
        try {
          return [(JSON.parse(readFileSync(join(dir, name), 'utf8')) as { pid: number }).pid];
        } catch {
          return [];
        }
      })
    : [];
  const groups = new Set<number>(pids);
  const parents = new Map<number, { ppid: number; pgid: number }>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // "pid (comm) state ppid pgrp …"; comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), { ppid: Number(ppid), pgid: Number(pgid) });
    } catch {
      // gone meanwhile
    }
  }
  const descends = (pid: number): boolean => {
    for (let at = pid, hops = 0; at > 1 && hops < 20; hops++) {
      if (pids.includes(at)) return true;
      at = parents.get(at)?.ppid ?? 0;
    }
    return false;
  };
  for (const [pid, { pgid }] of parents) if (descends(pid)) groups.add(pgid);
  return [...groups];
}

/** Ends the given process groups (after the window closed; those already gone are skipped). */
export function killGroups(groups: readonly number[]): void {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already ended with the window
    }
  }
}

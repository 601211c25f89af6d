/** What Linux says about a live process (/proc): its CPU time and memory, for the benches that watch one. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';

/** The kernel's clock tick: /proc's CPU times come in these (10 ms on most systems). */
export const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds of a live process: its own, and that of the children it has reaped (its agents). */
export function cpuOf(pid: number): { own: number; children: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const tick = (index: number): number => Number(fields[index - 3]);
  return { own: (tick(14) + tick(15)) / clockTicks, children: (tick(16) + tick(17)) / clockTicks };
}

/** User + system CPU seconds of a thread of a live process so far (the main thread: `tid` = `pid`). */
export function threadCpuSeconds(pid: number | 'self', tid: number | string): number {
  const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** CPU seconds so far of every thread of a live process, by thread id (the main thread's is the pid). */
export function cpuByThread(pid: number | 'self'): Map<string, number> {
  const byThread = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      byThread.set(tid, threadCpuSeconds(pid, tid));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byThread;
}

/** A size line of /proc/<pid>/status (VmRSS, VmHWM…) in MiB. */
export function statusField(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * CPU time the machine's hypervisor took from this VM so far (`steal` in /proc/stat), in ms over
 * every CPU: a run whose steal grew had its processes stopped by the host for that long in all,
 * which shows in every latency tail of that run (0 where /proc/stat does not say).
 */
export function stealMs(): number {
  const line = /^cpu\s+(.*)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1];
  const steal = Number(line?.trim().split(/\s+/)[7] ?? 0);
  return Number.isFinite(steal) ? (steal * 1000) / clockTicks : 0;
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { AgentExit, AgentLaunch, AgentPort, AgentTalk, Clock, LaunchedAgent } from '../../engine/ports';
import { type Result, ok, refused } from '../../core/result';
import { writeFileAtomic } from '../fs';
import { agentIdentitySchema, identify, verifyAgent } from './agentIdentity';
import type { AgentSupervisor } from './agentSupervisor';
import type { WatchOutcome } from './ownerWatch';
import { isAlive, isGroupAlive } from './processes';
import { resolveProfile } from './profiles';
import type { TerminalAgents } from './terminalAgents';

/**
 * What an owner remembers of a launched agent, so the next owner can end it after a crash: the pid
 * and, since the pid alone may name another process by then, the process's identity at launch.
 */
const runRecordSchema = z.object({
  workerId: z.string(),
  taskId: z.string(),
  attempt: z.number().int(),
  pid: z.number().int().positive(),
  identity: agentIdentitySchema.optional(),
  /** The agent's watchdog (ownerWatch.ts), which stops it and saves its work when the owner goes. */
  watchdog: z.number().int().positive().optional(),
});
type RunRecord = z.infer<typeof runRecordSchema>;

/**
 * The engine's AgentPort over the AgentSupervisor: resolves profile names, passes the endpoint
 * environment, and keeps a record per running agent in `.foreman/agents/` so that an owner that
 * starts after a crash can stop the agents the dead owner left behind (they run in their own
 * process groups and outlive it).
 */
export class SupervisedAgents implements AgentPort {
  private readonly recordDir: string;

  constructor(
    private readonly supervisor: AgentSupervisor,
    foremanDir: string,
    private readonly environment: () => Record<string, string>,
    private readonly userProfiles: () => Readonly<Record<string, unknown>> = () => ({}),
    private readonly log: (line: string) => void = () => undefined,
    /** Runs `mode: "terminal"` profiles (only a VS Code window has terminals). */
    private readonly terminals?: TerminalAgents,
  ) {
    this.recordDir = path.join(foremanDir, 'agents');
  }

  launch(launch: AgentLaunch): Result<LaunchedAgent> {
    const profile = resolveProfile(launch.agent, this.userProfiles());
    if (!profile.ok) return profile;
    // A terminal closes with its window, so no record is kept for a later owner to reap.
    if (profile.value.mode === 'terminal' && this.terminals) {
      const terminal = this.terminals.launch({ ...launch, profile: profile.value, env: this.environmentOf(launch) });
      return terminal.ok ? ok({ ...terminal.value, resumed: false }) : terminal;
    }
    const run = this.supervisor.launch({ ...launch, profile: profile.value, env: this.environmentOf(launch) });
    if (!run.ok) return run;
    const record: RunRecord = {
      workerId: launch.workerId,
      taskId: launch.taskId,
      attempt: launch.attempt,
      pid: run.value.pid,
      identity: identify(run.value.pid, launch.worktree),
    };
    const watchdog = this.supervisor.watches.pidOf(launch.workerId);
    if (watchdog !== undefined) record.watchdog = watchdog;
    fs.mkdirSync(this.recordDir, { recursive: true });
    writeFileAtomic(this.recordFile(launch.workerId), JSON.stringify(record));
    const exited = run.value.exited.finally(() => this.forget(record));
    const { pid, logFile, resumed, kind, confinement } = run.value;
    return ok({ pid, logFile, exited, resumed, kind, confinement });
  }

  /** The owner's environment for agents (endpoint, token, base), then this launch's own (its port). */
  private environmentOf(launch: AgentLaunch): Record<string, string> {
    return { ...this.environment(), ...(launch.env ?? {}) };
  }

  cancel(workerId: string): Promise<AgentExit | undefined> {
    if (this.terminals?.has(workerId)) return this.terminals.cancel(workerId);
    return this.supervisor.cancel(workerId);
  }

  tell(workerId: string, text: string): Result<AgentTalk> {
    if (this.terminals?.has(workerId)) return terminalRefusal(workerId);
    const told = this.supervisor.tell(workerId, text);
    return told.ok ? ok({ taskId: told.value.run.taskId, attempt: told.value.run.attempt, waited: told.value.waited }) : told;
  }

  interrupt(workerId: string): Result<AgentTalk> {
    if (this.terminals?.has(workerId)) return terminalRefusal(workerId);
    const interrupted = this.supervisor.interrupt(workerId);
    return interrupted.ok ? ok({ taskId: interrupted.value.taskId, attempt: interrupted.value.attempt, waited: false }) : interrupted;
  }

  signals(workerId: string): ReturnType<AgentPort['signals']> {
    if (this.terminals?.has(workerId)) return this.terminals.signals(workerId);
    return this.supervisor.signals(workerId) ?? this.terminals?.signals(workerId);
  }

  /**
   * Ends agents a previous owner launched and could not stop (it was killed). Their work stays in
   * the worktree; the crew snapshots it and retries the attempt. A group is signalled only when its
   * process is proven to be that agent (agentIdentity.ts); otherwise it is left alone and the
   * record dropped. Returns the records whose agent was stopped or already gone.
   */
  async reapOrphans(graceMs = 3000): Promise<RunRecord[]> {
    const reaped: RunRecord[] = [];
    for (const name of fs.existsSync(this.recordDir) ? fs.readdirSync(this.recordDir) : []) {
      const file = path.join(this.recordDir, name);
      const parsed = runRecordSchema.safeParse(safeJson(file));
      if (!parsed.success) {
        fs.rmSync(file, { force: true });
        continue;
      }
      const record = parsed.data;
      if (this.supervisor.running(record.workerId)?.pid === record.pid) continue;
      const agent = `the orphaned agent of ${record.workerId} (pid ${record.pid}, ${record.taskId} attempt ${record.attempt})`;
      const stopped = await this.watchdogOutcome(record, graceMs);
      if (stopped) {
        this.log(`agents: ${describeOutcome(stopped)}`);
      } else if (isGroupAlive(record.pid)) {
        const verdict = verifyAgent(record.pid, record.workerId, record.identity ?? {});
        if (!verdict.ours) {
          this.log(`agents: not stopping ${agent}: ${verdict.reason}; dropping its record`);
          fs.rmSync(file, { force: true });
          continue;
        }
        this.log(`agents: stopping ${agent}: ${verdict.evidence}`);
        await endGroup(record.pid, graceMs, this.supervisor.clock);
      }
      fs.rmSync(file, { force: true });
      reaped.push(record);
    }
    return reaped;
  }

  /**
   * What the agent's watchdog did when its owner went, waiting for it while it still works (the
   * owner died moments ago): its agent is then no orphan and needs no stopping here.
   */
  private async watchdogOutcome(record: RunRecord, graceMs: number): Promise<WatchOutcome | undefined> {
    const outcome = (): WatchOutcome | undefined => {
      const found = this.supervisor.watches.outcomeOf(record.taskId, record.attempt);
      return found?.pid === record.pid ? found : undefined;
    };
    // A bounded wait: a recycled pid of the watchdog costs this much, never a wrong signal.
    const { clock } = this.supervisor;
    const deadline = clock.now() + graceMs + watchdogSlackMs;
    while (!outcome() && record.watchdog !== undefined && isAlive(record.watchdog) && clock.now() < deadline) await clock.sleep(50);
    return outcome();
  }

  /**
   * What the watchdog did with this attempt's agent when its owner went away or stopped, taken
   * once: the crew then requeues the task calmly instead of treating the agent as lost.
   */
  stoppedWithOwner(work: { taskId: string; attempt: number }): { reason: string } | undefined {
    const outcome = this.supervisor.watches.outcomeOf(work.taskId, work.attempt);
    if (!outcome) return undefined;
    this.supervisor.watches.forget(work.taskId, work.attempt);
    return { reason: describeOutcome(outcome) };
  }

  private forget(record: RunRecord): void {
    const file = this.recordFile(record.workerId);
    const current = runRecordSchema.safeParse(safeJson(file));
    if (current.success && current.data.pid === record.pid) fs.rmSync(file, { force: true });
  }

  private recordFile(workerId: string): string {
    return path.join(this.recordDir, `${workerId}.json`);
  }
}

/** A terminal agent reads what a person types in its terminal, not Foreman's messages. */
function terminalRefusal(workerId: string): Result<never> {
  return refused('agentInTerminal', `The agent of '${workerId}' runs in a terminal of VS Code: type your message there.`);
}

/** How long past an agent's grace the next owner waits for a watchdog still at work (SIGKILL, snapshot). */
const watchdogSlackMs = 10_000;

function describeOutcome(outcome: WatchOutcome): string {
  const owner = outcome.cause === 'ownerGone' ? 'its owner went away' : 'its owner stopped';
  const signal = ` (${outcome.signal})`;
  const saved = outcome.wipRef
    ? `its work is saved in ${outcome.wipRef}`
    : outcome.snapshotError
      ? `its work could not be saved (${outcome.snapshotError}) and is still in the worktree`
      : 'it left no uncommitted work';
  return `the agent of ${outcome.workerId} (pid ${outcome.pid}, ${outcome.taskId} attempt ${outcome.attempt}) was stopped when ${owner}${signal}; ${saved}`;
}

function safeJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

async function endGroup(pid: number, graceMs: number, clock: Clock): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // Already gone.
    }
  };
  signal('SIGTERM');
  const deadline = clock.now() + graceMs;
  while (isGroupAlive(pid) && clock.now() < deadline) await clock.sleep(50);
  if (isGroupAlive(pid)) signal('SIGKILL');
}

/**
 * Runs a worktree's setup command (`npm ci`, `uv sync`, …): an argv array, never a shell, in its
 * own process group so that a timeout stops everything it started. Output is appended to the
 * attempt's log (after a header line saying what ran) and handed on line by line as progress.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Result, ok, refused } from '../../core/result';
import { DisposableStore } from '../../base/lifetime';
import { type Clock, systemClock } from '../../engine/ports';
import { isGroupAlive, signalGroup } from './processes';
import { safeCall } from './safeCall';

export const defaultSetupTimeoutMs = 15 * 60_000;

/** After SIGTERM on timeout, the group gets this long before SIGKILL. */
const killGraceMs = 3000;
/** Once the command exited, its output pipes get this long to drain (a leftover child may hold them). */
const drainMs = 2000;
/** Lines of output quoted in a failure message. */
const tailLines = 8;
/** A progress line longer than this is cut (a minified bundle printed to stdout, say). */
const maxLineLength = 500;

export interface SetupCommandRun {
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The whole environment of the command. */
  readonly env: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly timeoutMs: number;
  /** Shown in the log header, e.g. `FOREMAN_PORT=3001`. */
  readonly note?: string;
  readonly onLine?: (line: string) => void;
  /** The timeout's and the drain's clock; default the system's. */
  readonly clock?: Clock;
}

/** Resolves once the command and its pipes are done; never rejects for the command's own failure. */
export function runSetupCommand(run: SetupCommandRun): Promise<Result<void>> {
  const [command, ...args] = run.argv;
  if (command === undefined) return Promise.resolve(ok(undefined));
  mkdirSync(dirname(run.logFile), { recursive: true });
  const log = openSync(run.logFile, 'a');
  const startedAt = Date.now();
  const stamp = () => `# foreman ${new Date().toISOString()} setup`;
  writeSync(log, `${stamp()} argv=${JSON.stringify(run.argv)} cwd=${JSON.stringify(run.cwd)}${run.note ? ` ${run.note}` : ''}\n`);

  const tail: string[] = [];
  const emit = (line: string) => {
    const shown = line.length > maxLineLength ? `${line.slice(0, maxLineLength)}…` : line;
    tail.push(shown);
    if (tail.length > tailLines) tail.shift();
    if (run.onLine) safeCall('setup progress', () => run.onLine?.(shown));
  };

  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: run.cwd, env: run.env, shell: false, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const splitters = [child.stdout, child.stderr].map((stream) => {
      const splitter = new LineSplitter(emit);
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        if (settled) return;
        writeSync(log, chunk);
        splitter.push(chunk);
      });
      return splitter;
    });

    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const clock = run.clock ?? systemClock;
    const timers = new DisposableStore();
    const stopGroup = (signal: NodeJS.Signals) => {
      if (child.pid !== undefined && isGroupAlive(child.pid)) signalGroup(child.pid, signal);
    };

    const finish = (result: Result<void>, closing: string) => {
      if (settled) return;
      settled = true;
      timers.dispose();
      splitters.forEach((splitter) => splitter.flush());
      writeSync(log, `${stamp()} ${closing} after ${seconds(Date.now() - startedAt)}\n`);
      closeSync(log);
      resolve(result);
    };
    const failure = (code: string, what: string, details: Record<string, unknown>) => {
      const output = tail.length > 0 ? `; last output: ${tail.join(' | ')}` : '; it printed nothing';
      return refused(code, `The setup command ${JSON.stringify(run.argv)} ${what}${output}`, {
        argv: run.argv,
        ...details,
        tail: [...tail],
      });
    };
    const conclude = () => {
      if (exit === undefined) return;
      const { code, signal } = exit;
      const elapsed = seconds(Date.now() - startedAt);
      if (timedOut)
        finish(
          failure('setupTimedOut', `did not finish within ${seconds(run.timeoutMs)} and was stopped`, { timeoutMs: run.timeoutMs }),
          'timed out',
        );
      else if (code === 0) finish(ok(undefined), 'exited 0');
      else if (signal) finish(failure('setupFailed', `was killed by ${signal} after ${elapsed}`, { signal }), `killed by ${signal}`);
      else finish(failure('setupFailed', `exited ${code} after ${elapsed}`, { exitCode: code }), `exited ${code}`);
    };

    timers.add(
      clock.setTimeout(() => {
        timedOut = true;
        stopGroup('SIGTERM');
        timers.add(clock.setTimeout(() => stopGroup('SIGKILL'), killGraceMs));
      }, run.timeoutMs),
    );
    child.on('error', (error: NodeJS.ErrnoException) => {
      // Only a failed start reaches here before an exit: a missing or non-executable command, a missing cwd.
      if (exit !== undefined) return;
      const reason =
        error.code === 'ENOENT' ? `could not start: '${command}' was not found (${error.message})` : `could not start: ${error.message}`;
      finish(failure('setupNotStarted', reason, { errorCode: error.code }), 'could not start');
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Whatever the command left running in its group would outlive the setup step unowned, and
      // hold our pipes open: stop it, then wait for the pipes only so long.
      stopGroup('SIGTERM');
      timers.add(
        clock.setTimeout(() => {
          stopGroup('SIGKILL');
          child.stdout.destroy();
          child.stderr.destroy();
          conclude();
        }, drainMs),
      );
    });
    child.on('close', conclude);
  });
}

/** Splits a stream of text into lines; a lone '\r' (a progress bar redrawing) also ends a line. */
class LineSplitter {
  private pending = '';

  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: string): void {
    const parts = (this.pending + chunk).split(/\r\n|\n|\r/);
    this.pending = parts.pop() ?? '';
    for (const part of parts) if (part.trim().length > 0) this.emit(part);
  }

  flush(): void {
    if (this.pending.trim().length > 0) this.emit(this.pending);
    this.pending = '';
  }
}

function seconds(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${(ms / 1000).toFixed(1)} s`;
}

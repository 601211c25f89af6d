/**
 * The per-attempt files under the log folder: `<taskId>/attempt-<n>.log` and, when the profile
 * needs it, `<taskId>/attempt-<n>.prompt.md`. The agent writes its output straight into the log
 * through an inherited file descriptor rather than a pipe through Foreman, so an owner restart
 * never cuts an agent's output (or kills it with SIGPIPE), and the log is viewable live. Output
 * activity is read back from the file itself.
 */
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface AttemptPaths {
  /** The launch header, stderr (and stdout of agents without an event stream), and the exit. */
  readonly logFile: string;
  readonly promptFile: string;
  /** The agent's own event stream (its stdout), as it wrote it. */
  readonly streamFile: string;
  /** The same events normalised (`agentEventSchema`), one JSON object per line: the transcript's source. */
  readonly eventsFile: string;
  /** The folder of the attempt's files, and their common name stem (`attempt-<n>`). */
  readonly runDir: string;
  readonly stem: string;
}

/** `.foreman/logs`: the attempts' files, a folder per task. */
export function attemptLogDir(foremanDir: string): string {
  return join(foremanDir, 'logs');
}

/** The log of one attempt, for whoever shows it (either window, the CLI). */
export function attemptLogFile(foremanDir: string, taskId: string, attempt: number): string {
  return attemptPaths(attemptLogDir(foremanDir), taskId, attempt).logFile;
}

/** taskId must already be a checked id (it becomes a folder name). */
export function attemptPaths(logDir: string, taskId: string, attempt: number): AttemptPaths {
  const runDir = join(logDir, taskId);
  const stem = `attempt-${attempt}`;
  return {
    logFile: join(runDir, `${stem}.log`),
    promptFile: join(runDir, `${stem}.prompt.md`),
    streamFile: join(runDir, `${stem}.stream.jsonl`),
    eventsFile: join(runDir, `${stem}.events.jsonl`),
    runDir,
    stem,
  };
}

export function writePromptFile(paths: AttemptPaths, prompt: string): void {
  mkdirSync(dirname(paths.promptFile), { recursive: true, mode: 0o700 });
  writeFileSync(paths.promptFile, prompt, { mode: 0o600 });
}

export interface OpenedLog {
  /** For the child's stdout and stderr; the caller closes it once the child holds its own copy. */
  readonly descriptor: number;
  /** File size after our header: anything beyond it was written by the agent. */
  readonly outputStart: number;
}

/**
 * Opens the log for appending (a relaunch of the same attempt continues the same file) and writes
 * one header line: the time, the argv as JSON and the cwd, so the log alone says what ran where.
 */
export function openAttemptLog(logFile: string, argv: readonly string[], cwd: string, startedAt: number): OpenedLog {
  mkdirSync(dirname(logFile), { recursive: true, mode: 0o700 });
  const descriptor = openSync(logFile, 'a', 0o600);
  try {
    writeSync(
      descriptor,
      `# foreman ${new Date(startedAt).toISOString()} launch argv=${JSON.stringify(argv)} cwd=${JSON.stringify(cwd)}\n`,
    );
    return { descriptor, outputStart: fstatSync(descriptor).size };
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
}

/** When the agent last wrote output, from the log's mtime; undefined until it wrote anything. */
export function lastOutputTime(logFile: string, outputStart: number): number | undefined {
  try {
    const stat = statSync(logFile);
    return stat.size > outputStart ? stat.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}

/** A closing line after the agent's output, e.g. its exit reason. Failure to write it loses nothing. */
export function appendLogLine(logFile: string, line: string): void {
  try {
    appendFileSync(logFile, `# foreman ${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
  } catch {
    // The log folder may have been removed by the user; the exit is reported through the result anyway.
  }
}

/** Files an adapter needs before the launch; only Foreman and the agent read them. */
export function writeRunFiles(files: ReadonlyMap<string, string>): void {
  for (const [file, content] of files) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, content, { mode: 0o600 });
  }
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { booleanFlag, integerFlag, stringFlag } from '../argv';
import { printFailure, processPrinter } from '../format';
import { resolveTarget, route } from '../route';
import { ExitCode, type Failure, type Result, invalid } from '../../core/result';
import { TransitionLogChecker } from '../../core/transitionLog';
import type { UnexpectedFailure } from '../../infra/endpoint';
import { FileArchiveSink } from '../../infra/fs/archiveSegments';
import { foremanDir } from '../../infra/workspace/paths';
import { type PendingSource, type TrailEntry, arrayCursor, fileCursor, mergeBySeq, pagedCursor } from './auditTrail';
import { draft } from './helpers';
import type { CommandInput, CommandSpec, RequestDraft } from './spec';

const json = (input: CommandInput): boolean => input.argv.flags.get('json') === true;
const durationUnits = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `30m`, `2h`, `7d` in ms; undefined when the text is none of these. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+)(s|m|h|d)$/.exec(text);
  const unit = match?.[2] as keyof typeof durationUnits | undefined;
  return match && unit ? Number(match[1]) * durationUnits[unit] : undefined;
}

function buildArchive(input: CommandInput): Result<RequestDraft> {
  const limit = integerFlag(input.argv, 'limit');
  if (!limit.ok) return limit;
  const olderThan = stringFlag(input.argv, 'older-than');
  const olderThanMs = olderThan === undefined ? undefined : durationMs(olderThan);
  if (olderThan !== undefined && olderThanMs === undefined) {
    return invalid('badFlag', `--older-than: '${olderThan}' is not a duration; give one such as 90s, 30m, 2h or 7d`);
  }
  return draft('archive', {
    ...(olderThanMs !== undefined ? { olderThanMs } : {}),
    ...(limit.value !== undefined ? { limit: limit.value } : {}),
  });
}

/**
 * Checks a transitions log (seed 003 "Validation"). With `--archive`, the whole trail: every
 * archive segment's transitions and the live log, merged by seq (auditTrail.ts: a piece at a time,
 * so months of history need not fit in memory). A transition found twice (a segment a crash left
 * unapplied, whose rows are still live; or the export file given beside the archive) counts once
 * when both copies agree, and is a problem when they differ. Progress goes to stderr every 2 s.
 */
async function validateTransitions(input: CommandInput): Promise<number> {
  const printer = processPrinter;
  const file = input.positional['file'];
  const archive = booleanFlag(input.argv, 'archive');
  if (file === undefined && !archive) {
    return printFailure(
      printer,
      invalid('missingArgument', 'give a transitions file, or --archive for the archive and the live log'),
      json(input),
    );
  }
  const checker = new TransitionLogChecker();
  let shownAt = Date.now();
  const showProgress = (): void => {
    if (checker.checked % 10_000 !== 0 || Date.now() - shownAt < 2_000) return;
    shownAt = Date.now();
    printer.err(`validate-transitions: ${checker.checked.toLocaleString('en-US')} transitions checked…`);
  };
  let label = file ?? '';
  try {
    if (archive) {
      const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
      if (target.kind !== 'workspace') return printFailure(printer, invalid('badFlag', '--archive needs a workspace (--dir)'), json(input));
      const cursors = [await pagedCursor((afterSeq) => livePage(target, afterSeq))];
      if (file !== undefined) cursors.push(await fileCursor(path.resolve(input.cwd, file), file));
      for await (const entry of mergeBySeq(cursors, archivedSegments(foremanDir(target.repoRoot)))) {
        checker.checkParsed(entry.event);
        showProgress();
      }
      label = file !== undefined ? `${file} + archive + live log` : 'archive + live log';
    } else if (file !== undefined) {
      const lines = readline.createInterface({ input: fs.createReadStream(path.resolve(input.cwd, file), 'utf8'), crlfDelay: Infinity });
      for await (const line of lines) {
        checker.check(line);
        showProgress();
      }
    }
  } catch (error) {
    if (error instanceof LiveLogUnreadable) return printFailure(printer, error.failure, json(input));
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code ? `cannot read '${file ?? ''}' (${code})` : String(error instanceof Error ? error.message : error);
    return printFailure(printer, invalid('unreadableFile', `validate-transitions: ${reason}.`), json(input));
  }
  const report = checker.report();
  if (json(input)) printer.out(JSON.stringify(report));
  else if (report.ok) printer.out(`${label}: ${report.count} transitions, all valid`);
  else {
    for (const error of report.errors) printer.err(`${label}:${error.line}: ${error.message}`);
    const more = report.moreErrors ? ` (the first ${report.errors.length} listed)` : '';
    printer.err(`foreman: ${label}: ${report.errors.length + (report.moreErrors ?? 0)} problems in ${report.count} transitions${more}`);
  }
  return report.ok ? ExitCode.ok : ExitCode.refused;
}

/** The owner (or a one-shot engine) could not give the live log: its failure, as the CLI prints one. */
export class LiveLogUnreadable extends Error {
  constructor(readonly failure: Failure | UnexpectedFailure) {
    super(failure.message);
  }
}

/**
 * The live transitions after `afterSeq` (of `entity` only, when given), 50,000 at a time, through
 * the owner (or a one-shot engine). An entity that is not live has none.
 */
export async function livePage(target: { kind: 'workspace'; repoRoot: string }, afterSeq: number, entity?: string): Promise<TrailEntry[]> {
  const args = { afterSeq, limit: 50_000, latest: false, ...(entity !== undefined ? { entity } : {}) };
  const page = await route(target, { command: 'transitions', args, actor: 'cli' });
  if (!page.ok && page.kind === 'notFound' && entity !== undefined) return [];
  if (!page.ok) throw new LiveLogUnreadable(page);
  return page.value.map((event) => {
    const line = JSON.stringify(event);
    // Checked as its JSON reads back, as the archive's and the file's lines are.
    return { seq: event.seq, event: JSON.parse(line) as object, line };
  });
}

/**
 * Every sealed segment that holds transitions, by its first seq; its transitions are read again
 * only when the merge reaches it. A segment that is not sealed (torn or edited) stops the check.
 */
function archivedSegments(dir: string): PendingSource[] {
  const sink = new FileArchiveSink(dir);
  const sealed = (batch: number): string[] => {
    const lines = sink.read(batch);
    if (!lines) throw new Error(`archive segment ${batch} in ${sink.dir} is not sealed (torn or edited)`);
    return lines;
  };
  // The checker parses each transition with the schema (TransitionLogChecker); here only its kind is read.
  const transitionsOf = (batch: number): TrailEntry[] => {
    const entries: TrailEntry[] = [];
    for (const line of sealed(batch)) {
      const { kind, ...event } = JSON.parse(line) as { kind?: unknown; seq?: unknown };
      if (kind !== 'transition') continue;
      if (typeof event.seq !== 'number') throw new Error(`archive segment ${batch} in ${sink.dir} holds a transition with no numeric seq`);
      entries.push({ seq: event.seq, event, line: JSON.stringify(event) });
    }
    return entries;
  };
  const sources: PendingSource[] = [];
  for (const batch of sink.batches()) {
    // Only the first seq for now: each line is checked when the merge reads the segment.
    const firstSeq = sealed(batch).reduce((lowest, line) => Math.min(lowest, transitionSeqOf(line)), Infinity);
    if (firstSeq !== Infinity) sources.push({ firstSeq, open: () => Promise.resolve(arrayCursor(transitionsOf(batch))) });
  }
  return sources;
}

/**
 * A segment line's seq when it is a transition, else Infinity. The archiver writes
 * `{"kind":"transition","seq":N,…`, read from the start of the line; any other spelling is parsed.
 */
function transitionSeqOf(line: string): number {
  const written = /^\{"kind":"(\w+)"(?:,"seq":(\d+))?/.exec(line);
  if (written) return written[1] === 'transition' && written[2] !== undefined ? Number(written[2]) : Infinity;
  const row = JSON.parse(line) as { kind?: unknown; seq?: unknown } | null;
  return row?.kind === 'transition' && typeof row.seq === 'number' ? row.seq : Infinity;
}

/** Retention: moving finished work to the archive, and checking the whole audit trail. */
export const archiveCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'archive',
    usage: '[--older-than 7d] [--limit N]',
    summary:
      'move done and cancelled tasks finished before the window, their history and old messages to .foreman/archive/ (a window under 1h also takes the tasks "done in the last hour" counts)',
    flags: { 'older-than': 'string', limit: 'string' },
    build: buildArchive,
  },
  {
    kind: 'local',
    name: 'validate-transitions',
    usage: '[<file>] [--archive]',
    summary: 'check a transitions log, or with --archive the archive plus the live log (exit 3 when it has problems)',
    flags: { archive: 'boolean' },
    positionals: ['file?'],
    run: validateTransitions,
  },
];

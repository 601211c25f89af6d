import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { booleanFlag, integerFlag, stringFlag } from '../argv';
import { printFailure, processPrinter } from '../format';
import { resolveTarget, route } from '../route';
import { ExitCode, type Failure, type Result, invalid, refused } from '../../core/result';
import { TransitionLogChecker } from '../../core/transitionLog';
import type { ArchiveState } from '../../engine/archiveChain';
import { type PendingSource, type TrailEntry, arrayCursor, fileCursor, mergeBySeq, pagedCursor } from './auditTrail';
import { draft } from './helpers';
import type { CommandInput, CommandSpec, RequestDraft } from './spec';
import { foremanDir, type UnexpectedFailure } from '../../host/endpointAccess';
import { ArchiveFolderError, FileArchiveSink, surveyArchive, type UsableSegment } from '../../host/infraParts';

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
  // A window past any date (more days than time has): said about the option, not the request's field.
  if (olderThanMs !== undefined && olderThanMs > maxWindowMs) {
    return invalid('badFlag', `--older-than: '${olderThan}' reaches back past any date Foreman can hold; give at most ${maxWindowDays}d`);
  }
  return draft('archive', {
    ...(olderThanMs !== undefined ? { olderThanMs } : {}),
    ...(limit.value !== undefined ? { limit: limit.value } : {}),
  });
}

/** The longest window `--older-than` takes: 100,000 days (some 273 years) back from now stays a date. */
const maxWindowDays = 100_000;
const maxWindowMs = maxWindowDays * durationUnits.d;

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
  let chainProblems: string[] = [];
  try {
    if (archive) {
      const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
      if (target.kind !== 'workspace') return printFailure(printer, invalid('badFlag', '--archive needs a workspace (--dir)'), json(input));
      const sink = new FileArchiveSink(foremanDir(target.repoRoot));
      const survey = surveyArchive(sink, await archiveState(target));
      chainProblems = survey.problems;
      const cursors = [await pagedCursor((afterSeq) => livePage(target, afterSeq))];
      if (file !== undefined) cursors.push(await fileCursor(path.resolve(input.cwd, file), file));
      for await (const entry of mergeBySeq(cursors, archivedSegments(sink, survey.usable))) {
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
    if (error instanceof ArchiveFolderError)
      return printFailure(printer, refused('archiveFolder', `validate-transitions: ${error.message}.`), json(input));
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code ? `cannot read '${file ?? ''}' (${code})` : String(error instanceof Error ? error.message : error);
    return printFailure(printer, invalid('unreadableFile', `validate-transitions: ${reason}.`), json(input));
  }
  const report = checker.report();
  const ok = report.ok && chainProblems.length === 0;
  if (json(input)) printer.out(JSON.stringify({ ...report, ok, ...(archive ? { archiveProblems: chainProblems } : {}) }));
  else if (ok) printer.out(`${label}: ${report.count} transitions, all valid${archive ? ", and the archive's segments are whole" : ''}`);
  else {
    for (const problem of chainProblems) printer.err(problem);
    for (const error of report.errors) printer.err(`${label}:${error.line}: ${error.message}`);
    const more = report.moreErrors ? ` (the first ${report.errors.length} listed)` : '';
    const trail = `${report.errors.length + (report.moreErrors ?? 0)} problems in ${report.count} transitions${more}`;
    const segments = chainProblems.length > 0 ? `${chainProblems.length} problems with the archive's segments, ` : '';
    printer.err(`foreman: ${label}: ${segments}${trail}`);
  }
  return ok ? ExitCode.ok : ExitCode.refused;
}

/** What the store records of its archive (its identity, its last segment and that one's hash), through the owner or a one-shot engine. */
export async function archiveState(target: { kind: 'workspace'; repoRoot: string }): Promise<ArchiveState> {
  const state = await route(target, { command: 'archive.state', args: {}, actor: 'cli' });
  if (!state.ok) throw new LiveLogUnreadable(state);
  return state.value;
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
 * Every usable segment that holds transitions, by its first seq (as its seal gives it, or read for
 * a segment sealed before seals gave it); its transitions are read again only when the merge
 * reaches it. A segment that is no longer sealed by then (changed during the check) stops it.
 */
function archivedSegments(sink: FileArchiveSink, usable: readonly UsableSegment[]): PendingSource[] {
  const sealed = (batch: number): string[] => {
    const read = sink.read(batch);
    if (read.state !== 'sealed') throw new Error(`archive segment ${batch} in ${sink.dir} is ${read.state} (changed during the check)`);
    return read.lines;
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
  for (const { batch, firstSeq: sealedFirst } of usable) {
    // Only the first seq for now: each line is checked when the merge reads the segment.
    const firstSeq =
      sealedFirst === undefined ? sealed(batch).reduce((lowest, line) => Math.min(lowest, transitionSeqOf(line)), Infinity) : sealedFirst;
    if (firstSeq !== null && firstSeq !== Infinity)
      sources.push({ firstSeq, open: () => Promise.resolve(arrayCursor(transitionsOf(batch))) });
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

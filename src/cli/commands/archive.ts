import * as fs from 'node:fs';
import * as path from 'node:path';
import { booleanFlag, integerFlag, stringFlag } from '../argv';
import { printFailure, processPrinter } from '../format';
import { resolveTarget, route } from '../route';
import { type ArchiveLine, archiveLineSchema } from '../../core/archiveSegment';
import { ExitCode, type Result, invalid, ok } from '../../core/result';
import { type TransitionEvent, validateTransitionLog } from '../../core/transitionLog';
import type { UnexpectedFailure } from '../../infra/endpoint';
import { FileArchiveSink } from '../../infra/fs/archiveSegments';
import { foremanDir } from '../../infra/workspace/paths';
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
 * archive segment's transitions and the live log, merged by seq. A transition found twice (a
 * segment a crash left unapplied, whose rows are still live; or the export file given beside the
 * archive) counts once when both copies agree, and is a problem when they differ.
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
  let text: string;
  let label = file ?? '';
  try {
    const sources: string[] = file !== undefined ? [fs.readFileSync(path.resolve(input.cwd, file), 'utf8')] : [];
    if (archive) {
      const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
      if (target.kind !== 'workspace') return printFailure(printer, invalid('badFlag', '--archive needs a workspace (--dir)'), json(input));
      const live = await liveLog(target);
      if (!live.ok) return printFailure(printer, live, json(input));
      text = mergeBySeq([...sources, ...archivedTransitionTexts(foremanDir(target.repoRoot)), live.value]);
      label = file !== undefined ? `${file} + archive + live log` : 'archive + live log';
    } else {
      text = sources.join('\n');
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code ? `cannot read '${file ?? ''}' (${code})` : String(error instanceof Error ? error.message : error);
    return printFailure(printer, invalid('unreadableFile', `validate-transitions: ${reason}.`), json(input));
  }
  const report = validateTransitionLog(text);
  if (json(input)) printer.out(JSON.stringify(report));
  else if (report.ok) printer.out(`${label}: ${report.count} transitions, all valid`);
  else {
    for (const error of report.errors) printer.err(`${label}:${error.line}: ${error.message}`);
    printer.err(`foreman: ${label}: ${report.errors.length} problems in ${report.count} transitions`);
  }
  return report.ok ? ExitCode.ok : ExitCode.refused;
}

/** The live transitions, paged through the owner (or a one-shot engine), as JSONL. */
async function liveLog(target: { kind: 'workspace'; repoRoot: string }): Promise<Result<string> | UnexpectedFailure> {
  const lines: string[] = [];
  for (let afterSeq = 0; ;) {
    const page = await route(target, { command: 'transitions', args: { afterSeq, limit: 50_000, latest: false }, actor: 'cli' });
    if (!page.ok) return page;
    const last = page.value.at(-1);
    if (!last) return ok(lines.join('\n'));
    for (const event of page.value) lines.push(JSON.stringify(event));
    afterSeq = last.seq;
  }
}

/** Each segment's transition lines, as JSONL in the export's shape. */
function archivedTransitionTexts(dir: string): string[] {
  const sink = new FileArchiveSink(dir);
  return sink.batches().map((batch) => {
    const lines = sink.read(batch);
    if (!lines) throw new Error(`archive segment ${batch} in ${sink.dir} is not sealed (torn or edited)`);
    return lines
      .map((line) => archiveLineSchema.parse(JSON.parse(line)))
      .filter((line): line is Extract<ArchiveLine, { kind: 'transition' }> => line.kind === 'transition')
      .map(({ kind: _kind, ...event }) => JSON.stringify(event))
      .join('\n');
  });
}

/** JSONL texts merged into one in seq order; a seq seen twice must be the same transition. */
function mergeBySeq(texts: readonly string[]): string {
  const bySeq = new Map<number, string>();
  const conflicts: string[] = [];
  for (const text of texts) {
    for (const raw of text.split('\n')) {
      if (raw.trim() === '') continue;
      const seq = (JSON.parse(raw) as Partial<TransitionEvent> | null)?.seq;
      if (typeof seq !== 'number') throw new Error(`a transition line has no numeric seq: ${raw.slice(0, 120)}`);
      const canonical = JSON.stringify(JSON.parse(raw));
      const seen = bySeq.get(seq);
      if (seen !== undefined && seen !== canonical) conflicts.push(`seq ${seq} differs between two sources`);
      bySeq.set(seq, canonical);
    }
  }
  if (conflicts.length > 0) throw new Error(conflicts.slice(0, 5).join('; '));
  return [...bySeq.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, line]) => line)
    .join('\n');
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

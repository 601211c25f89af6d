/**
 * `foreman history <id>`: one task's or worker's whole audit trail, archived and live. Retention
 * moves finished tasks and their transitions out of the live database (issue 13), after which
 * `status` and `transitions --entity` no longer find them; the archive keeps them, and this reads it.
 * A task that was archived is shown as the segment holds it (title, status, when it finished).
 * Every segment is read, with a progress line on stderr every 2 s; only the lines that name the id are
 * parsed (300,000 archived tasks: 1.9 s here, 0.85× a bare read and parse of the segments).
 */
import { stringFlag } from '../argv';
import { type Printer, printFailure, processPrinter, transitionLines } from '../format';
import { resolveTarget } from '../route';
import { idPattern } from '../../core/idPattern';
import { idRule } from '../../core/ids';
import { type ArchiveLine, archiveLineSchema } from '../../core/archiveSegment';
import { describeIssues } from '../../core/requests';
import { ExitCode, invalid, notFound } from '../../core/result';
import { type TransitionEvent, transitionEventSchema } from '../../core/transitionLog';
import { FileArchiveSink } from '../../infra/fs/archiveSegments';
import { foremanDir } from '../../infra/workspace/paths';
import { LiveLogUnreadable, livePage } from './archive';
import { pagedCursor } from './auditTrail';
import { required } from './helpers';
import type { CommandInput, CommandSpec } from './spec';

const json = (input: CommandInput): boolean => input.argv.flags.get('json') === true;

/** An archived task as its segment's `task` line holds it: the columns a person looks for. */
interface ArchivedTask {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly finishedAt: string | null;
  readonly segment: number;
}

interface Archived {
  readonly task: ArchivedTask | undefined;
  readonly transitions: TransitionEvent[];
}

/**
 * Everything the archive holds of `id`, segment by segment (each checked against its seal). Only
 * the lines that spell the id are parsed: a months-long archive is mostly other tasks' lines.
 */
function readArchive(dir: string, id: string, printer: Printer): Archived {
  const sink = new FileArchiveSink(dir);
  const quoted = JSON.stringify(id);
  let task: ArchivedTask | undefined;
  const transitions: TransitionEvent[] = [];
  const batches = sink.batches();
  let shownAt = Date.now();
  for (const [index, batch] of batches.entries()) {
    if (Date.now() - shownAt >= 2_000) {
      shownAt = Date.now();
      printer.err(`history: ${index} of ${batches.length} archive segments read…`);
    }
    const lines = sink.read(batch);
    if (!lines) throw new Error(`archive segment ${batch} in ${sink.dir} is not sealed (torn or edited)`);
    for (const line of lines) {
      if (!line.includes(quoted)) continue;
      const parsed = archiveLineSchema.safeParse(JSON.parse(line));
      if (!parsed.success)
        throw new Error(`archive segment ${batch} in ${sink.dir}: a line naming '${id}' ${describeIssues(parsed.error, 'line')}`);
      const row = parsed.data;
      if (row.kind === 'task' && row.id === id) task = archivedTask(row, batch);
      // The schema without `kind` strips it: the event as `transitions` prints it.
      else if (row.kind === 'transition' && row.entity_id === id) transitions.push(transitionEventSchema.parse(row));
    }
  }
  return { task, transitions };
}

function archivedTask(row: Extract<ArchiveLine, { kind: 'task' }>, segment: number): ArchivedTask {
  const title = typeof row['title'] === 'string' ? row['title'] : '';
  const finished = typeof row['finished_at'] === 'number' ? new Date(row['finished_at']).toISOString() : null;
  return { id: row.id, title, status: row.status, finishedAt: finished, segment };
}

/** The live transitions of `id`, none when nothing live has that id (an archived task). */
async function readLive(target: { kind: 'workspace'; repoRoot: string }, id: string): Promise<TransitionEvent[]> {
  const live: TransitionEvent[] = [];
  const cursor = await pagedCursor((afterSeq) => livePage(target, afterSeq, id));
  // The engine's own events, read back from JSON.
  for (; cursor.head; await cursor.advance()) live.push(cursor.head.event as TransitionEvent);
  return live;
}

/** Archived and live in seq order; a seq in both (a segment a crash left unapplied) shows once. */
function inSeqOrder(archived: readonly TransitionEvent[], live: readonly TransitionEvent[]): TransitionEvent[] {
  const bySeq = new Map<number, TransitionEvent>();
  for (const event of [...archived, ...live]) bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

async function history(input: CommandInput, printer: Printer = processPrinter): Promise<number> {
  const id = required(input, 'id');
  if (!idPattern.test(id))
    return printFailure(printer, invalid('invalidId', `id: '${id}' is not a worker or task id (${idRule})`), json(input));
  const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
  if (target.kind !== 'workspace') return printFailure(printer, invalid('badFlag', 'history needs a workspace (--dir)'), json(input));
  let archived: Archived;
  let live: TransitionEvent[];
  try {
    archived = readArchive(foremanDir(target.repoRoot), id, printer);
    live = await readLive(target, id);
  } catch (error) {
    if (error instanceof LiveLogUnreadable) return printFailure(printer, error.failure, json(input));
    return printFailure(
      printer,
      invalid('unreadableArchive', `history: ${error instanceof Error ? error.message : String(error)}.`),
      json(input),
    );
  }
  const transitions = inSeqOrder(archived.transitions, live);
  if (!archived.task && transitions.length === 0) {
    return printFailure(
      printer,
      { ...notFound('worker or task', id), message: `No worker or task with id '${id}', live or archived.` },
      json(input),
    );
  }
  if (json(input)) {
    printer.out(JSON.stringify({ archivedTask: archived.task ?? null, transitions }));
    return ExitCode.ok;
  }
  const task = archived.task;
  if (task) {
    const finished = task.finishedAt ? ` at ${task.finishedAt}` : '';
    printer.out(`task ${task.id} "${task.title}": ${task.status}${finished}; archived in segment ${task.segment}`);
  }
  for (const line of transitionLines(transitions)) printer.out(line);
  return ExitCode.ok;
}

export const historyCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'history',
    usage: '<id>',
    summary: "a task's or worker's whole audit trail, archived and live (`status` and `transitions` read only the live database)",
    positionals: ['id'],
    run: (input) => history(input),
  },
];

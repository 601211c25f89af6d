/**
 * `foreman history <id>`: one task's or worker's whole audit trail, archived and live. Retention
 * moves finished tasks and their transitions out of the live database (issue 13), after which
 * `status` and `transitions --entity` no longer find them; the archive keeps them, and this reads it.
 * A task that was archived is shown as the segment holds it (title, status, when it finished).
 * Every segment is read once, with a progress line on stderr every 2 s; only the lines that name the
 * id are parsed (300,000 archived tasks: 1.9 s here, 0.85× a bare read and parse of the segments).
 *
 * A segment the store recorded that is not there is said (issue 28): a task it held is "archived in
 * segment 3, which is missing" (the archive's index knows), not "does not exist"; a history that may
 * lack lines says so. A task of a store this folder had before, whose archive and exports `foreman
 * init` moved aside, is shown from there, saying whose it is.
 */
import * as path from 'node:path';
import { stringFlag } from '../argv';
import { type Printer, printFailure, processPrinter, transitionLines } from '../format';
import { resolveTarget } from '../route';
import { idPattern } from '../../core/idPattern';
import { idRule } from '../../core/ids';
import { ExitCode, invalid, notFound, refused } from '../../core/result';
import type { TransitionEvent } from '../../core/transitionLog';
import type { ArchiveState } from '../../engine/archiveChain';
import { LiveLogUnreadable, archiveState, livePage } from './archive';
import { type Archived, findInMovedAside, indexedUnavailableSegment, readArchive } from './archivedHistory';
import { pagedCursor } from './auditTrail';
import { required } from './helpers';
import type { CommandInput, CommandSpec } from './spec';
import { ArchiveFolderError } from '../../host/infraParts';
import { foremanDir } from '../../host/endpointAccess';

const json = (input: CommandInput): boolean => input.argv.flags.get('json') === true;

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

/** "segment 3", "segments 3 and 5", "segments 3, 4 and 7". */
function segmentList(batches: readonly number[]): string {
  if (batches.length === 1) return `segment ${batches[0]}`;
  return `segments ${batches.slice(0, -1).join(', ')} and ${batches.at(-1)}`;
}

async function history(input: CommandInput, printer: Printer = processPrinter): Promise<number> {
  const id = required(input, 'id');
  if (!idPattern.test(id))
    return printFailure(printer, invalid('invalidId', `id: '${id}' is not a worker or task id (${idRule})`), json(input));
  const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
  if (target.kind !== 'workspace') return printFailure(printer, invalid('badFlag', 'history needs a workspace (--dir)'), json(input));
  const dir = foremanDir(target.repoRoot);
  let state: ArchiveState;
  let archived: Archived;
  let live: TransitionEvent[];
  try {
    state = await archiveState(target);
    archived = readArchive(dir, state, id, printer);
    live = await readLive(target, id);
  } catch (error) {
    if (error instanceof LiveLogUnreadable) return printFailure(printer, error.failure, json(input));
    if (error instanceof ArchiveFolderError)
      return printFailure(printer, refused('archiveFolder', `history: ${error.message}.`), json(input));
    return printFailure(
      printer,
      invalid('unreadableArchive', `history: ${error instanceof Error ? error.message : String(error)}.`),
      json(input),
    );
  }
  const transitions = inSeqOrder(archived.transitions, live);
  const gaps = archived.unavailable;
  if (!archived.task && transitions.length === 0) return notInThisStore(input, printer, dir, state, archived, id);
  if (gaps.length > 0) {
    printer.err(
      `history: ${segmentList(gaps)} of the archive cannot be read (\`foreman validate-transitions --archive\` says why): what ${gaps.length === 1 ? 'it holds' : 'they hold'} of '${id}' is not shown.`,
    );
  }
  if (json(input)) {
    printer.out(JSON.stringify({ archivedTask: archived.task ?? null, transitions, unavailableSegments: gaps }));
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

/**
 * Nothing live or in this store's readable segments: a segment the index names and that is
 * missing; else another store's archive or exports that `init` moved aside; else not found, saying
 * which segments could have held it.
 */
async function notInThisStore(
  input: CommandInput,
  printer: Printer,
  dir: string,
  state: ArchiveState,
  archived: Archived,
  id: string,
): Promise<number> {
  const indexed = indexedUnavailableSegment(archived, state, id);
  if (indexed !== undefined) {
    const file = archived.sink.fileOf(indexed);
    return printFailure(
      printer,
      refused(
        'archiveSegmentMissing',
        `'${id}' was archived in segment ${indexed}, which is missing or unreadable (${file}); restore it from a backup of ${archived.sink.dir} to read its history (\`foreman validate-transitions --archive\` says what is wrong with the archive).`,
        { id, segment: indexed, file },
      ),
      json(input),
    );
  }
  const moved = await findInMovedAside(dir, id);
  if (moved) {
    const where = path.relative(path.dirname(dir), moved.folder.dir);
    const whose = moved.folder.note?.from ? `store ${moved.folder.note.from}` : 'a store from before stores had identities';
    const when = moved.folder.note ? ` on ${moved.folder.note.movedAt}` : '';
    const origin = `${whose}, whose archive and exports foreman init moved aside to ${where}/${when}; this store (${state.store ?? 'no identity yet'}) does not hold it`;
    if (json(input)) {
      printer.out(
        JSON.stringify({
          archivedTask: moved.task ?? null,
          transitions: moved.transitions,
          movedAside: { dir: moved.folder.dir, ...moved.folder.note },
        }),
      );
      return ExitCode.ok;
    }
    const task = moved.task;
    if (task) {
      const finished = task.finishedAt ? ` at ${task.finishedAt}` : '';
      printer.out(`task ${task.id} "${task.title}": ${task.status}${finished}; archived in segment ${task.segment} of ${origin}`);
    } else printer.out(`${id}: not in this store; found in the history of ${origin}`);
    for (const line of transitionLines(moved.transitions)) printer.out(line);
    return ExitCode.ok;
  }
  const gaps = archived.unavailable;
  const could =
    gaps.length > 0
      ? ` ${segmentList(gaps)} of the archive cannot be read, and may hold it: restore ${gaps.length === 1 ? 'it' : 'them'} from a backup (\`foreman validate-transitions --archive\` says what is wrong).`
      : '';
  return printFailure(
    printer,
    { ...notFound('worker or task', id), message: `No worker or task with id '${id}', live or archived.${could}` },
    json(input),
  );
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

import * as vscode from 'vscode';
import type { OverlapPair, TaskOverlap } from '../../core/overlaps';
import { parseRequest } from '../../core/requests';
import { overlapsOf } from '../../shared/overlapWords';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import { CommandId } from './commandIds';
import { type CommandTarget, pickSession } from './pickers';

/** The three answers to an overlap (issue 33), each the engine request of the same name. */
export const overlapCommands = [
  { id: CommandId.overlapRunAfter, request: 'overlap.run-after' },
  { id: CommandId.overlapRebaseWhenMerged, request: 'overlap.rebase-when-merged' },
  { id: CommandId.overlapIgnore, request: 'overlap.ignore' },
] as const;
type OverlapRequest = (typeof overlapCommands)[number]['request'];

/** One overlap as a person picks it: the task acted on, and the overlap it has with another. */
interface PickedPair {
  readonly session: ForemanSession;
  readonly task: string;
  readonly overlap: TaskOverlap;
}

/**
 * Run After, Rebase When Merged and Ignore for this Pair, from a Workers or Queue row marked
 * `.overlap`, from a dashboard card (which names the other task as a second argument), or from the
 * palette (a pick of every overlapping pair). Sent through the session like every other command, so
 * a read-only window routes them to the owner; the engine refuses in words what no longer fits.
 */
export function registerOverlapCommands(registry: SessionRegistry): vscode.Disposable[] {
  return overlapCommands.map(({ id, request }) =>
    vscode.commands.registerCommand(id, (target: CommandTarget, other?: unknown) =>
      runOverlapCommand(registry, request, target, typeof other === 'string' ? other : undefined),
    ),
  );
}

async function runOverlapCommand(
  registry: SessionRegistry,
  request: OverlapRequest,
  target: CommandTarget,
  other: string | undefined,
): Promise<void> {
  const picked = await pickPair(registry, target, other, wording[request].pick());
  if (!picked) return;
  const pair: OverlapPair = { task: picked.task, other: picked.overlap.taskId };
  if (request === 'overlap.run-after') {
    const go = vscode.l10n.t('Run After');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('Stop {0} and run it after {1}?', pair.task, pair.other),
      {
        modal: true,
        detail: vscode.l10n.t(
          'Its agent is stopped, its work is kept (a WIP ref) and it is queued again, blocked until {0} is done.',
          pair.other,
        ),
      },
      go,
    );
    if (answer !== go) return;
  }
  const parsed = parseRequest({ command: request, args: pair, actor: 'vscode' });
  const result = parsed.ok ? await picked.session.execute(parsed.request) : { ok: false as const, message: parsed.message };
  if (!result.ok) void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: {0}', result.message));
  else void vscode.window.setStatusBarMessage(`$(check) ${wording[request].done(pair)}`, 4000);
}

/** Whole sentences per action: a translation may order the words differently. */
const wording: Readonly<Record<OverlapRequest, { pick(): string; done(pair: OverlapPair): string }>> = {
  'overlap.run-after': {
    pick: () => vscode.l10n.t('Run After: pick an overlap'),
    done: (pair) => vscode.l10n.t('{0} runs after {1}', pair.task, pair.other),
  },
  'overlap.rebase-when-merged': {
    pick: () => vscode.l10n.t('Rebase When Merged: pick an overlap'),
    done: (pair) => vscode.l10n.t('{0} is rebased as soon as {1} merges', pair.task, pair.other),
  },
  'overlap.ignore': {
    pick: () => vscode.l10n.t('Ignore for this Pair: pick an overlap'),
    done: (pair) => vscode.l10n.t('No more warnings for {0} and {1}', pair.task, pair.other),
  },
};

/**
 * The pair a command is about. From a row: its task's overlaps as the engine has them now (the row
 * may be older), the one named by `other`, or the only one, or a pick among them. From the palette:
 * a pick among every overlap of every running task.
 */
async function pickPair(
  registry: SessionRegistry,
  target: CommandTarget,
  other: string | undefined,
  title: string,
): Promise<PickedPair | undefined> {
  const fromRow = rowTask(target);
  const session = fromRow?.session ?? (await pickSession(registry));
  if (!session) return undefined;
  const pairs = currentPairs(session).filter((pair) => !fromRow || pair.task === fromRow.task);
  const fitting = other ? pairs.filter((pair) => pair.overlap.taskId === other) : pairs;
  const [only] = fitting;
  if (!only) {
    const which = fromRow
      ? vscode.l10n.t('{0} overlaps no running task now.', fromRow.task)
      : vscode.l10n.t('No running tasks overlap now.');
    void vscode.window.showInformationMessage(which);
    return undefined;
  }
  if (fitting.length === 1 || other) return only;
  const chosen = await vscode.window.showQuickPick(
    fitting.map((pair) => ({
      label: vscode.l10n.t('{0} ↔ {1}', pair.task, pair.overlap.taskId),
      description: pair.overlap.title,
      detail: pair.overlap.files.join(', '),
      pair,
    })),
    { title, placeHolder: vscode.l10n.t('Pick the pair') },
  );
  return chosen?.pair;
}

/** The task a clicked row holds: a worker's current task, or the Queue row's task. */
function rowTask(target: CommandTarget): { session: ForemanSession; task: string } | undefined {
  if (target?.kind === 'worker' && target.worker.taskId) return { session: target.session, task: target.worker.taskId };
  if (target?.kind === 'task') return { session: target.session, task: target.task.id };
  return undefined;
}

/** Every overlap the engine reports now, from each side that holds a task (a pair shows twice, once per side). */
function currentPairs(session: ForemanSession): PickedPair[] {
  const snapshot = session.snapshot();
  const pairs: PickedPair[] = [];
  const seen = new Set<string>();
  for (const holder of [
    ...snapshot.workers.map((w) => ({ task: w.taskId, overlaps: overlapsOf(w) })),
    ...snapshot.tasks.map((t) => ({ task: t.id, overlaps: overlapsOf(t) })),
  ]) {
    if (!holder.task) continue;
    for (const overlap of holder.overlaps) {
      const key = `${holder.task}>${overlap.taskId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pairs.push({ session, task: holder.task, overlap });
    }
  }
  return pairs;
}

import type { TaskOverlap } from '../../core/overlaps';
import { hunksMeet } from '../../shared/overlapWords';
import type { Localizer } from '../localizer';

/**
 * What a Workers or Queue row shows of its task's overlaps with other running tasks (issue 33):
 * words for the row's description, an icon that replaces the row's own while the overlap lasts
 * (louder when changed lines meet), a tooltip section naming the files, and a detail row per
 * overlap. No `vscode` here, so the rows' words are tested without a window.
 */
export interface OverlapBadge {
  /** "⚠ overlaps t-12 (2 files)", appended to the row's description. */
  readonly description: string;
  /** A codicon and its theme colour: a warning when lines meet, a quieter mark for shared files only. */
  readonly icon: readonly [id: string, color: string];
  /** Markdown for the tooltip: each other task, its files, and whether lines meet. */
  readonly tooltip: string;
  /** One detail row per overlap, under the worker's row. */
  readonly details: ReadonlyArray<{ readonly label: string; readonly value: string; readonly icon: string }>;
}

/** The row's badge, or undefined when its task overlaps nothing. */
export function overlapBadge(overlaps: readonly TaskOverlap[], l10n: Localizer): OverlapBadge | undefined {
  if (overlaps.length === 0) return undefined;
  const loud = hunksMeet(overlaps);
  const names = overlaps.map((overlap) => l10n.t('{0} ({1})', overlap.taskId, files(overlap, l10n))).join(', ');
  return {
    description: `${loud ? '⚠' : '≈'} ${l10n.t('overlaps {0}', names)}`,
    icon: loud ? ['warning', 'list.errorForeground'] : ['files', 'list.warningForeground'],
    tooltip: overlaps.map((overlap) => tooltipSection(overlap, l10n)).join('\n\n'),
    details: overlaps.map((overlap) => ({
      label: l10n.t('Overlaps {0}', overlap.taskId),
      value: [files(overlap, l10n), hunks(overlap, l10n), plan(overlap, l10n), overlap.files.join(', ')].filter(Boolean).join(' · '),
      icon: overlap.hunks ? 'warning' : 'files',
    })),
  };
}

/**
 * A row's description with the badge's words in it: right after the state, which stays the first
 * word, so a narrow side bar that cuts the row short still shows which task it overlaps (the words
 * after the state — title, activity — are the ones to lose). A row that starts otherwise (an agent
 * waiting for you says that first) gets them after its first part.
 */
export function describeWithOverlap(description: string, badge: OverlapBadge | undefined): string {
  if (!badge) return description;
  const cut = description.indexOf(' · ');
  if (cut < 0) return `${description} · ${badge.description}`;
  return `${description.slice(0, cut)} · ${badge.description}${description.slice(cut)}`;
}

function tooltipSection(overlap: TaskOverlap, l10n: Localizer): string {
  const holder = overlap.workerId ? l10n.t(' on {0}', overlap.workerId) : '';
  const words = l10n.t(
    '**Overlaps** `{0}` {1}{2}: {3}, {4}',
    overlap.taskId,
    escape(overlap.title),
    holder,
    files(overlap, l10n),
    hunks(overlap, l10n),
  );
  const head = `${overlap.hunks ? '$(warning)' : '$(files)'} ${words}`;
  const chosen = plan(overlap, l10n);
  const list = overlap.files.map((file) => `- \`${file.replace(/`/g, "'")}\``).join('\n');
  return [head, chosen ? `_${chosen}_` : '', list].filter(Boolean).join('\n\n');
}

function files(overlap: TaskOverlap, l10n: Localizer): string {
  return overlap.files.length === 1 ? l10n.t('1 file') : l10n.t('{0} files', overlap.files.length);
}

function hunks(overlap: TaskOverlap, l10n: Localizer): string {
  return overlap.hunks ? l10n.t('changed lines overlap') : l10n.t('same files, different lines');
}

function plan(overlap: TaskOverlap, l10n: Localizer): string | undefined {
  return overlap.plan === 'rebase-when-merged' ? l10n.t('rebases onto the base as soon as {0} merges', overlap.taskId) : undefined;
}

/** Markdown's own characters in a title are shown, not interpreted. */
function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

import { booleanFlag, integerFlag, stringFlag } from '../argv';
import { type Result, invalid, ok } from '../../core/result';
import { taskStatuses } from '../../core/taskMachine';
import { draft } from './helpers';
import type { CommandInput, CommandSpec, RequestDraft } from './spec';

/** Tasks `foreman status` shows unless told otherwise: the full list of a long history is `--all`. */
const defaultStatusLimit = 100;

/** A duration back from now (`90s`, `30m`, `2h`, `7d`) or a date, as epoch ms. */
function sinceOf(text: string, now: number): Result<number> {
  const relative = /^(\d+)(s|m|h|d)$/.exec(text);
  if (relative)
    return ok(now - Number(relative[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 's' | 'm' | 'h' | 'd']);
  const date = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && Number.isFinite(date)) return ok(date);
  return invalid(
    'badFlag',
    `--since: '${text}' is neither a duration back from now (90s, 30m, 2h, 7d) nor a date (2026-11-23 or 2026-11-23T10:00)`,
  );
}

function buildStatus(input: CommandInput): Result<RequestDraft> {
  const all = booleanFlag(input.argv, 'all');
  const limit = integerFlag(input.argv, 'limit');
  if (!limit.ok) return limit;
  if (all && limit.value !== undefined) return invalid('badFlag', '--all and --limit contradict each other: give one of them');
  const since = stringFlag(input.argv, 'since');
  const sinceMs = since === undefined ? undefined : sinceOf(since, Date.now());
  if (sinceMs && !sinceMs.ok) return sinceMs;
  const statuses = stringFlag(input.argv, 'status')
    ?.split(',')
    .map((status) => status.trim().toLowerCase())
    .filter(Boolean);
  const unknown = statuses?.find((status) => !(taskStatuses as readonly string[]).includes(status));
  if (unknown !== undefined)
    return invalid('badFlag', `--status: '${unknown}' is not a task status; a task status is one of ${taskStatuses.join(', ')}`);
  return draft('status', {
    ...(all ? {} : { limit: limit.value ?? defaultStatusLimit }),
    ...(statuses ? { statuses } : {}),
    ...(stringFlag(input.argv, 'worker') !== undefined ? { worker: stringFlag(input.argv, 'worker') } : {}),
    ...(sinceMs ? { since: sinceMs.value } : {}),
  });
}

/** Looking at a workspace (status, the audit log, metrics) and keeping its logs. */
export const inspectCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'status',
    usage: '[--all | --limit N] [--status s[,s…]] [--worker <id>] [--since 2h|<ISO date>]',
    summary: `workers and tasks: the active tasks first, then the latest finished, at most ${defaultStatusLimit} unless --all or --limit`,
    flags: { all: 'boolean', limit: 'string', status: 'string', worker: 'string', since: 'string' },
    build: buildStatus,
  },
  {
    kind: 'engine',
    name: 'transitions',
    usage: '[--entity <id>] [--limit N] [--after <seq>]',
    summary:
      'the audit log: its latest N transitions (default 200), oldest first; --after <seq>: the N that follow that seq instead (0: from the start)',
    flags: { entity: 'string', limit: 'string', after: 'string' },
    build: (input) => {
      const limit = integerFlag(input.argv, 'limit');
      if (!limit.ok) return limit;
      const after = integerFlag(input.argv, 'after');
      if (!after.ok) return after;
      if (after.value !== undefined && after.value < 0)
        return invalid('badFlag', `--after: a seq is 0 or more (0: from the start), not ${after.value}`);
      // A log months long is read from its end, as `git log` is; a reader that pages names where it is.
      const from = after.value === undefined ? { latest: true } : { afterSeq: after.value };
      return draft('transitions', { entity: stringFlag(input.argv, 'entity'), limit: limit.value, ...from });
    },
  },
  {
    kind: 'engine',
    name: 'metrics',
    usage: '',
    summary: 'transition counts, time in state, rejections, idempotency hits',
    build: () => draft('metrics', {}),
  },
  {
    kind: 'engine',
    name: 'export',
    usage: '',
    summary: 'append new transitions and messages to .foreman/transitions.jsonl and bus.jsonl',
    build: () => draft('export', {}),
  },
  { kind: 'engine', name: 'compact', usage: '', summary: 'drop messages every agent has acknowledged', build: () => draft('compact', {}) },
];

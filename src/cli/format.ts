/**
 * What the CLI prints. People get lines and tables; `--json` prints the result's value as JSON on
 * one line. Errors go to stderr as `foreman: <message>`, or with `--json` to stdout as
 * `{"error":{kind,code,message,details}}` so scripts read one stream.
 */
import { pullRequestBadge } from '../shared/pullRequestWords';
import type { CommandName, MergeReport, ResultOf } from '../core/requests';
import { ExitCode } from '../core/result';
import type { TransitionEvent } from '../core/transitionLog';
import type { ChainView } from '../engine/chainCoordinator';
import type { Metrics } from '../engine/metrics';
import type { ClaimedTask } from '../engine/queuePicker';
import type { TaskRow, WorkerRow } from '../engine/rows';
import type { StatusSnapshot, TaskStatusView, WorkerStatus } from '../engine/statusView';
import { describeUsage, formatUsage, hasUsage } from '../shared/usageText';
import { cell, duration, table } from './table';
import { downMachineLines, hostCell, ownerTable } from './teamLines';
import { overlapStatusLines } from './overlapStatus';
import type { EndpointAnswer, EndpointResult } from '../host/endpointAccess';

type Failure = Extract<EndpointResult, { ok: false }>;

export interface Printer {
  out(line: string): void;
  err(line: string): void;
}

export const processPrinter: Printer = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Prints a result and returns the exit code it stands for. */
export function printResult<C extends CommandName>(printer: Printer, command: C, result: EndpointAnswer<C>, json: boolean): number {
  if (!result.ok) return printFailure(printer, result, json);
  if (json) printer.out(JSON.stringify(result.value ?? null));
  else for (const line of humanLines[command](result.value)) printer.out(line);
  return ExitCode.ok;
}

export function printFailure(printer: Printer, failure: Failure, json: boolean): number {
  const details = 'details' in failure && failure.details ? failure.details : undefined;
  if (json)
    printer.out(
      JSON.stringify({ error: { kind: failure.kind, code: failure.code, message: failure.message, ...(details ? { details } : {}) } }),
    );
  else printer.err(`foreman: ${failure.message}`);
  return failure.kind === 'unexpected' ? ExitCode.unexpected : ExitCode[failure.kind];
}

const workerLines = (worker: WorkerRow): string[] => [
  `worker ${worker.id}${worker.host ? ` on ${worker.host}` : ''}: ${worker.state}${worker.task_id ? ` on task ${worker.task_id} (attempt ${worker.attempt}, branch ${worker.branch ?? '-'})` : ''}`,
];
const taskLines = (task: TaskRow): string[] => [taskLine(task)];
const claimLines = (claimed: ClaimedTask | null): string[] => [
  claimed ? `claimed task ${claimed.id} (attempt ${claimed.attempt}, branch ${claimed.branch})` : 'nothing to claim: no runnable task',
];
const chainLines = (chain: ChainView): string[] => [
  `chain ${chain.parent.id} "${chain.parent.title}": ${chain.children.length} tasks`,
  ...chain.children.map((child) => `  ${taskLine(child)}`),
];

/** How each command's result reads for a person (one entry per command, typed by its answer schema: `ResultOf`). */
const humanLines: { readonly [C in CommandName]: (value: ResultOf<C>) => string[] } = {
  'worker.add': workerLines,
  'worker.list': (workers) => [...workerTable(workers), ...downMachineLines(workers, Date.now())],
  'task.add': taskLines,
  'chain.add': chainLines,
  'plan.start': taskLines,
  'plan.add': taskLines,
  'plan.finalize': chainLines,
  assign: claimLines,
  claim: claimLines,
  dispatch: (assignments) =>
    assignments.length ? assignments.map((a) => `assigned task ${a.task} to ${a.worker} (attempt ${a.attempt})`) : ['nothing to dispatch'],
  start: workerLines,
  submit: workerLines,
  approve: workerLines,
  'request-changes': workerLines,
  merge: (merged) => mergeLines(merged),
  'send-failure': (sent) => [
    `sent ${[
      sent.checks.length ? `the failure of ${sent.checks.join(', ')}` : '',
      sent.conflict ? `the conflict with ${sent.conflict}` : '',
    ]
      .filter(Boolean)
      .join(' and ')} on pull request #${sent.pullRequest} to the agent`,
    ...workerLines(sent),
  ],
  'send-review': (sent) => [
    `sent ${sent.comments === 1 ? 'one comment' : `${sent.comments} comments`} of pull request #${sent.pullRequest} to the agent`,
    ...workerLines(sent),
  ],
  cancel: ({ worker, task }) => [
    [task ? `cancelled task ${task}` : undefined, worker ? `worker ${worker} is IDLE` : undefined].filter(Boolean).join('; '),
  ],
  fail: workerLines,
  reset: workerLines,
  retry: taskLines,
  heartbeat: (beat) => [
    `heartbeat from ${beat.worker} (${beat.state}, attempt ${beat.attempt})${beat.recovered ? ': recovered from STALE' : ''}`,
  ],
  stall: (stalled) => [stalled.moved ? `${stalled.worker} is STALE` : `${stalled.worker} is ${stalled.state}; nothing to do`],
  pause: (worker) => [
    `${worker.id} is ${worker.state}${worker.paused_until ? ` until ${new Date(worker.paused_until).toISOString()}` : ''}`,
  ],
  answer: (answered) => [`${answered.decision === 'allow' ? 'allowed' : 'denied'} ${answered.worker}: ${answered.question}`],
  tell: (told) => [`told ${told.worker} (${told.taskId} attempt ${told.attempt})${told.waited ? '; it goes on from its interrupt' : ''}`],
  interrupt: (stopped) => [
    `interrupted ${stopped.worker} (${stopped.taskId} attempt ${stopped.attempt}); it waits for your message: foreman tell ${stopped.worker} <text>`,
  ],
  usage: (session) => {
    const { inputTokens, outputTokens, costUsd } = session.usage;
    return [
      `task ${session.taskId} attempt ${session.attempt}: ${inputTokens} input and ${outputTokens} output tokens, $${costUsd.toFixed(4)}`,
    ];
  },
  send: (sent) => [
    sent.duplicate ? `already published as message ${sent.seq} (id ${sent.id})` : `published message ${sent.seq} (id ${sent.id})`,
  ],
  poll: (polled) => pollLines(polled),
  ack: (ack) => [ack.moved ? `cursor moved to ${ack.cursor}` : `cursor stays at ${ack.cursor}`],
  status: (status) => statusLines(status),
  transitions: (events) => transitionLines(events),
  metrics: (metrics) => metricLines(metrics),
  export: (counts) => [
    `exported ${counts.transitions} transitions to .foreman/transitions.jsonl and ${counts.messages} messages to .foreman/bus.jsonl`,
  ],
  compact: (compacted) => [`compacted ${compacted.removed} messages below seq ${compacted.below}`],
  'overlap.run-after': (moved) => [
    `${moved.task} stopped and queued again, blocked by ${moved.other}${moved.wip ? `; its work is kept in commit ${moved.wip.slice(0, 12)}` : ''}`,
  ],
  'overlap.rebase-when-merged': (planned) => [
    planned.rebased
      ? `${planned.other} had merged: ${planned.task} was rebased onto the base (now at ${planned.rebased.slice(0, 12)})`
      : `${planned.task} will be rebased onto the base as soon as ${planned.other} merges`,
  ],
  'overlap.ignore': (ignored) => [`${ignored.task} and ${ignored.other} are no longer reported as overlapping`],
  'archive.state': (state) => [
    `store ${state.store ?? '(no identity yet)'}: ${state.batch === 0 ? 'no archive segment applied' : `archive segments 1–${state.batch} applied, the last with hash ${state.hash ?? '(not recorded)'}`}`,
  ],
  archive: (report) => [
    ...(report.recovered > 0 ? [`applied ${count(report.recovered, 'segment')} a crash had left written but not applied`] : []),
    report.batch === null
      ? 'nothing is due for the archive'
      : `archived ${count(report.tasks, 'task')}, ${count(report.transitions, 'transition')} and ${count(report.messages, 'message')} to .foreman/archive/ (segment ${report.batch})${report.more ? '; more is due: run it again' : ''}`,
    ...(report.live
      ? [
          `live: ${count(report.live.tasks, 'task')}, ${count(report.live.transitions, 'transition')}, ${count(report.live.messages, 'message')}`,
        ]
      : []),
  ],
};

/** What landed where; a repeated request (same --request-id) has only the worker to show. */
function mergeLines(worker: WorkerRow & { readonly merged?: MergeReport }): string[] {
  const merged = worker.merged;
  if (!merged) return workerLines(worker);
  return [
    `merged task "${merged.title}" (${merged.taskId}) from branch ${merged.branch} into ${merged.base}`,
    `${merged.base} is now at ${merged.baseAfter.slice(0, 12)} (was ${merged.baseBefore.slice(0, 12)})`,
    `worker ${worker.id}: ${worker.state}`,
  ];
}

function taskLine(task: TaskRow): string {
  const blocked = task.blocked_by_task_id ? `, after ${task.blocked_by_task_id}` : '';
  return `task ${task.id}: ${task.status}${blocked} "${task.title}"`;
}

function statusLines(status: StatusSnapshot): string[] {
  const lines = [`base branch: ${status.baseBranch ?? '-'}`];
  if (hasUsage(status.usage)) lines.push(`usage: ${formatUsage(status.usage)} (${describeUsage(status.usage)})`);
  lines.push('');
  // A shared store's owners, and the machines none runs on (issue 29): their workers only look idle.
  const now = Date.now();
  const owners = ownerTable(status.owners, now);
  if (owners.length) lines.push(...owners, '');
  lines.push(...(status.workers.length ? workerTable(status.workers) : ['no workers (add one: foreman worker add <id>)']));
  const down = downMachineLines(status.workers, now);
  lines.push(...(down.length ? ['', ...down] : []), '');
  const page = status.page;
  const none = page && page.total > 0 ? ['no task matches (drop a filter, or --all)'] : ['no tasks (add one: foreman task add <title>)'];
  lines.push(...(status.tasks.length ? taskTable(status.tasks) : none));
  const overlaps = overlapStatusLines(status);
  if (overlaps.length) lines.push('', ...overlaps);
  if (page && page.shown < page.matching) {
    lines.push(
      '',
      `showing ${page.shown} of ${page.matching} tasks (the active ones first, then the latest finished); ` +
        'narrow with --status, --worker or --since, or list them all with --all',
    );
  }
  if (page && page.total > page.shown) {
    const counts = Object.entries(page.counts).map(([state, count]) => `${state} ${count}`);
    lines.push(`all ${page.total} tasks: ${counts.join(', ')}`);
  }
  if (page && page.archived > 0) {
    const tasks = page.archived === 1 ? '1 finished task is' : `${page.archived} finished tasks are`;
    lines.push(`${tasks} in the archive, not listed here: foreman history <id> shows one`);
  }
  return lines;
}

function workerTable(workers: readonly WorkerStatus[]): string[] {
  // A crew on several machines (issue 14) says where each worker runs; a crew of one machine has no host column.
  const hosts = workers.some((w) => w.host !== null);
  const now = Date.now();
  return table(
    ['WORKER', ...(hosts ? ['HOST'] : []), 'STATE', 'TASK', 'ATTEMPT', 'HEARTBEAT', 'USAGE', 'NOW', 'LIVENESS'],
    workers.map((w) => [
      w.id,
      ...(hosts ? [hostCell(w, now)] : []),
      w.state,
      cell(w.taskId),
      String(w.attempt),
      w.heartbeatAgeMs === null ? '-' : `${duration(w.heartbeatAgeMs)} ago`,
      usageCell(w),
      // A waiting agent needs a person before anything else it does matters.
      w.needsInput ? cell(`waiting for you: ${w.needsInput.message}`, 60) : cell(w.activity?.text, 50),
      // The monitor's reason for a waiting worker repeats the question the NOW column already shows.
      w.needsInput ? w.liveness : `${w.liveness} ${cell(w.livenessReason, 60)}`,
    ]),
  );
}

function taskTable(tasks: readonly TaskStatusView[]): string[] {
  return table(
    ['TASK', 'STATUS', 'WORKER', 'ATTEMPT', 'AFTER', 'PARENT', 'USAGE', 'TITLE'],
    tasks.map((t) => [
      t.id,
      t.pullRequest ? `${t.status}, ${pullRequestCell(t.pullRequest)}` : t.status,
      cell(t.workerId),
      `${t.attempt}/${t.maxAttempts}`,
      cell(t.blockedBy),
      cell(t.parentId),
      usageCell(t),
      cell(t.title),
    ]),
  );
}

/** "in PR #12 (checks failed, 2 comments)", "PR #12 merged". */
function pullRequestCell(pull: NonNullable<TaskStatusView['pullRequest']>): string {
  return pull.state === 'open' ? `in ${pullRequestBadge(pull)}` : pullRequestBadge(pull);
}

function usageCell(item: { readonly usage: StatusSnapshot['usage'] }): string {
  return hasUsage(item.usage) ? formatUsage(item.usage) : '-';
}

/** `1 task`, `2 tasks`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function transitionLines(events: readonly TransitionEvent[]): string[] {
  if (events.length === 0) return ['no transitions'];
  return events.map(
    (e) =>
      `${e.seq}  ${e.timestamp}  ${e.entity_id}  ${e.from_state} → ${e.to_state}  (${e.trigger}) by ${e.actor}${e.reason ? `: ${cell(e.reason, 80)}` : ''}`,
  );
}

function metricLines(metrics: Metrics): string[] {
  const queue =
    Object.entries(metrics.queue)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ') || 'empty';
  const rejected = Object.entries(metrics.rejected.byCode)
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
  return [
    `queue: ${queue}`,
    `done in the last hour: ${metrics.throughputPerHour}`,
    `rejected transitions: ${metrics.rejected.total}${rejected ? ` (${rejected})` : ''}`,
    `idempotency: ${metrics.idempotency.hits} repeats answered from ${metrics.idempotency.keys} keys`,
    `agent usage: ${hasUsage(metrics.usage) ? `${formatUsage(metrics.usage)} (${describeUsage(metrics.usage)})` : 'none reported'}`,
    'transitions:',
    ...table(
      ['ENTITY', 'FROM', 'TO', 'COUNT'],
      metrics.transitions.map((t) => [t.entity, t.from, t.to, String(t.count)]),
    ).map((line) => `  ${line}`),
  ];
}

function pollLines(poll: ResultOf<'poll'>): string[] {
  const lines = [`cursor ${poll.cursor}, ${poll.messages.length} new`];
  for (const m of poll.messages)
    lines.push(`  ${m.seq}  ${m.from} → ${m.to ?? '*'}  ${m.type}  ${cell(m.payload === undefined ? '' : JSON.stringify(m.payload), 80)}`);
  return lines;
}

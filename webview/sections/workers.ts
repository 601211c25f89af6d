import type { WorkerCard } from '../../src/shared/protocol';
import { describeUsage, formatUsage, hasUsage } from '../../src/shared/usageText';
import { heartbeatExpected, shownLiveness, troubleReason } from '../../src/shared/livenessWords';
import { confinementWords } from '../../src/shared/confinementWords';
import { pullRequestBadge } from '../../src/shared/pullRequestWords';
import { bar } from '../bar';
import type { RenderContext } from '../context';
import { el } from '../dom';
import { clockTime, duration } from '../format';
import { heartbeatStrip } from '../heartbeatStrip';
import { icon } from '../icons';
import { actionBar } from './actions';
import { livenessChip, stateChip, ticking } from './chips';
import { overlapBadge, overlapEdgeLayer, overlapLines } from './overlaps';
import { pager } from './pager';

/** The crew as a grid of cards: state, task, heartbeat (ticking, with its recent timeline), progress, why it is stuck. */
export function renderWorkers(ctx: RenderContext): HTMLElement {
  const { workers } = ctx.folder;
  return el(
    'section',
    { class: 'panel workers', attrs: { 'aria-label': 'Workers' } },
    el('h2', {}, 'Workers', el('span', { class: 'count' }, String(workers.total))),
    workers.total === 0 ? el('p', { class: 'muted empty' }, 'No workers yet. Add one to start the crew.') : workerGrid(ctx, workers.items),
    pager(workers, 'workers', (page) => ctx.setView({ workersPage: page })),
  );
}

/** The cards, with a line between the cards of two workers whose tasks overlap (issue 33). */
function workerGrid(ctx: RenderContext, cards: readonly WorkerCard[]): HTMLElement {
  const grid = el('div', { class: 'worker-grid' }, ...cards.map((worker) => workerCard(ctx, worker)));
  const edges = overlapEdgeLayer(grid, cards);
  if (edges) grid.append(edges);
  return grid;
}

function workerCard(ctx: RenderContext, worker: WorkerCard): HTMLElement {
  const now = ctx.hostNow();
  const { folder } = ctx;
  const busy = worker.taskId !== null;
  /** Silence matters only while an agent should be running; a worker in review has nothing to beat for. */
  const watched = heartbeatExpected(worker.state);
  // Liveness words only while an agent should run: a failed launch is FAILED with its error, not "DEAD".
  const verdict = shownLiveness(worker);
  // A worker waiting for a person is not in trouble: its quiet is the person's, and it says so itself.
  // A STALE one is, whatever its heartbeat reads once its agent was stopped.
  const troubled = !worker.needsInput && (verdict !== undefined || worker.state === 'STALE');
  const trouble = troubleReason(worker);
  const troubleLevel = (verdict ?? 'STALE').toLowerCase();
  const beatsAt = worker.heartbeatsAt;
  const statesAt = worker.states;
  // The agent has exited 0 and its work waits for a person: whatever share it last reported, it is done.
  const finished = worker.state === 'IN_REVIEW' || worker.state === 'APPROVED';
  const progress = worker.progress === null || !(watched || finished) ? null : finished ? 1 : worker.progress;
  return el(
    'article',
    {
      class: `card worker-card state-${worker.state.toLowerCase()} liveness-${worker.liveness.toLowerCase()}${worker.needsInput ? ' needs-input' : ''}${worker.overlaps.length ? ' has-overlap' : ''}`,
      attrs: {
        'data-worker': worker.id,
        'aria-label': `${worker.id}, ${worker.state}${worker.needsInput ? `, waiting for you: ${worker.needsInput.message}` : ''}${troubled ? `, ${verdict ?? worker.state}: ${trouble}` : worker.state === 'PAUSED' ? `, ${worker.livenessReason}` : ''}`,
      },
    },
    el(
      'header',
      {},
      el('span', { class: 'dot' }),
      el('code', { class: 'worker-id' }, worker.id),
      stateChip(worker.state),
      // A STALE worker's state already says it; the chip adds only a different verdict (WARN, DEAD).
      verdict === undefined || verdict === worker.state ? null : livenessChip(verdict),
      el('span', { class: 'spacer' }),
      busy ? overlapBadge(worker) : null,
      busy && worker.confinement ? confinementBadge(worker.confinement) : null,
      worker.pullRequest ? pullRequestLink(worker.pullRequest) : null,
      el('span', { class: 'agent muted', attrs: { title: 'agent profile' } }, worker.agent),
      worker.host ? hostTag(worker.host, worker.hostOwner) : null,
    ),
    busy
      ? el(
          'div',
          { class: 'task' },
          el('div', { class: 'task-title', attrs: { title: worker.taskTitle ?? worker.taskId ?? '' } }, worker.taskTitle ?? worker.taskId),
          el(
            'div',
            { class: 'meta muted' },
            el('code', {}, worker.taskId),
            ` · attempt ${worker.attempt}${worker.maxAttempts ? `/${worker.maxAttempts}` : ''}`,
            worker.branch ? ' · ' : null,
            worker.branch ? el('code', { class: 'branch', attrs: { title: worker.branch } }, worker.branch) : null,
          ),
        )
      : el(
          'div',
          { class: 'task idle muted' },
          `No task · ${worker.state === 'IDLE' ? 'idle' : worker.state.toLowerCase()} for `,
          ticking(worker.stateChangedAt, 'age', duration(now - worker.stateChangedAt)),
        ),
    busy ? overlapLines(ctx, worker) : null,
    worker.needsInput ? waitingLine(worker.needsInput, now) : null,
    worker.activity ? activityLine(worker.activity, now) : null,
    busy || worker.heartbeatsAt.length
      ? el(
          'div',
          { class: 'pulse-row' },
          el(
            'span',
            { class: 'beat-age', attrs: { title: 'time since the last heartbeat' } },
            icon('heart'),
            worker.lastHeartbeatMs === null
              ? 'no heartbeat yet'
              : ticking(worker.lastHeartbeatMs, 'ago', `${duration(now - worker.lastHeartbeatMs)} ago`),
          ),
          heartbeatStrip(
            {
              beats: beatsAt,
              lastHeartbeatMs: worker.lastHeartbeatMs,
              busy: watched,
              states: statesAt,
              windowMs: folder.heartbeatWindowMs,
              warnMs: folder.liveness.warnMs,
              staleMs: folder.liveness.staleMs,
            },
            now,
          ),
        )
      : null,
    busy && progress !== null
      ? el(
          'div',
          { class: `progress-row${finished ? ' finished' : ''}` },
          bar(progress, 'progress', finished ? 'progress 100%: the agent finished' : `progress ${Math.round(progress * 100)}%`),
          el('span', { class: 'muted' }, finished ? '100% · agent finished' : `${Math.round(progress * 100)}%`),
        )
      : null,
    troubled ? el('p', { class: `reason liveness-${troubleLevel}` }, icon('warning'), trouble) : null,
    // Waiting out a usage limit: why, and when it goes on ("paused: … — resumes at 14:00:00 (in 12m)",
    // read again with each refresh of the crew).
    worker.state === 'PAUSED' ? el('p', { class: 'paused-line', attrs: { role: 'status' } }, icon('clock'), worker.livenessReason) : null,
    // An IDLE worker offering Retry sits next to its failed manual task: the reason says which, and why.
    worker.state === 'IDLE' && worker.actions.includes('retry')
      ? el('p', { class: 'error-text' }, icon('error'), worker.livenessReason)
      : null,
    worker.state === 'IN_REVIEW' && worker.summary ? el('p', { class: 'summary-text' }, worker.summary) : null,
    worker.note ? el('p', { class: 'note' }, icon('comment'), worker.note) : null,
    // A STALE worker's error is the verdict that made it stale: the reason line above says it.
    worker.lastError && (worker.state === 'FAILED' || worker.state === 'WORKING')
      ? el('p', { class: 'error-text' }, icon('error'), worker.lastError)
      : null,
    hasUsage(worker.usage)
      ? el(
          'div',
          { class: 'usage muted', attrs: { title: `all runs of ${worker.id}: ${describeUsage(worker.usage)}` } },
          formatUsage(worker.usage),
        )
      : null,
    actionBar(ctx, worker.actions, { kind: 'worker', id: worker.id }, { compact: true, subject: worker.id }),
  );
}

/** "PR #12 (checks failed)": a link to the task's pull request (VS Code opens an http(s) link outside the webview). */
function pullRequestLink(pull: NonNullable<WorkerCard['pullRequest']>): HTMLElement {
  const words = pullRequestBadge(pull);
  const trouble = pull.checks === 'failure' || pull.conflict !== undefined;
  const link = el(
    'a',
    {
      class: `pr-badge${trouble ? ' trouble' : ''}`,
      attrs: { title: `${words}: ${pull.url}`, 'aria-label': `${words}, open it` },
    },
    icon('merge'),
    words,
  );
  // el() refuses `href` outright (dom.ts); this one is set here, and only to an http(s) address.
  if (/^https?:\/\//.test(pull.url)) link.setAttribute('href', pull.url);
  return link;
}

/** How the agent's run is confined: a quiet lock, or a warning badge when it is unconfined. */
function confinementBadge(confinement: NonNullable<WorkerCard['confinement']>): HTMLElement {
  const words = confinementWords(confinement);
  return el(
    'span',
    {
      class: `confinement confinement-${confinement}${words.warning ? ' warning' : ' muted'}`,
      attrs: { title: words.detail, 'aria-label': words.detail, role: words.warning ? 'status' : undefined },
    },
    icon(words.warning ? 'warning' : 'lock'),
    words.label,
  );
}

/** The agent asked for a person (a permission): said plainly, in its own colour, with how long it has waited. */
function waitingLine(needsInput: NonNullable<WorkerCard['needsInput']>, now: number): HTMLElement {
  return el(
    'p',
    { class: 'needs-input-line', attrs: { role: 'status' } },
    icon('bell'),
    el('strong', {}, 'waiting for you: '),
    el('span', { class: 'needs-input-message' }, needsInput.message),
    el('span', { class: 'muted' }, ' · ', ticking(needsInput.at, 'ago', `${duration(now - needsInput.at)} ago`)),
  );
}

/** What the agent does right now ("Bash: npm test") and how long ago it said so. */
function activityLine(activity: NonNullable<WorkerCard['activity']>, now: number): HTMLElement {
  return el(
    'div',
    { class: 'activity-line', attrs: { title: activity.text } },
    icon('tool'),
    el('span', { class: 'activity-text' }, activity.text),
    el('span', { class: 'activity-age muted' }, ticking(activity.at, 'ago', `${duration(now - activity.at)} ago`)),
  );
}

/** Where its agent runs; a machine with no live owner is flagged: nothing there launches this worker's agent (issue 29). */
function hostTag(host: string, owner: WorkerCard['hostOwner']): HTMLElement {
  if (!owner || owner.alive) return el('span', { class: 'host muted', attrs: { title: 'the machine that runs its agent' } }, `on ${host}`);
  const why =
    owner.goneSince === null
      ? `no owner runs on ${host}: nothing launches this worker's agent until one does (foreman serve, or VS Code, there)`
      : `the owner of ${host} is gone since ${clockTime(owner.goneSince)}: nothing launches this worker's agent until an owner runs there again`;
  return el(
    'span',
    { class: 'host host-down', attrs: { title: why, 'aria-label': why, role: 'status' } },
    icon('warning'),
    `on ${host} · machine down`,
  );
}

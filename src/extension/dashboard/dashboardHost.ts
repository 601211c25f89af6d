import type { LivenessSettings } from '../../core/policies';
import { RunOnceScheduler } from '../../base/async';
import { DisposableBase, type Event } from '../../base/lifetime';
import { type Clock, systemClock } from '../../engine/ports';
import type { TaskStatusView, WorkerStatus } from '../../engine/statusView';
import {
  type ActionName,
  type HandlerMap,
  type HostMessage,
  type ViewState,
  type WebviewMessage,
  defaultViewState,
  dispatchMessage,
  webviewMessageSchema,
} from '../../shared/protocol';
import { dashboardDelta, isEmptyDelta } from '../../shared/dashboardDelta';
import { overlapActionNames, overlapActions, overlapsOf } from '../../shared/overlapWords';
import type { DashboardSnapshot } from '../../shared/protocol';
import type { ForemanSession } from '../session';
import type { ViewsChange } from '../statusModel';
import { ActivityFeed } from './activityFeed';
import { actionsForTask, actionsForWorker, folderActions } from './actionPolicy';
import { CardCache } from './cardCache';
import { type HeartbeatHistory, heartbeatWindowMs } from './heartbeatHistory';
import { type FolderInfo, buildDashboardSnapshot } from './snapshot';

/** An action the host has checked against the current state, with the objects it is about. */
export type ResolvedAction = { readonly action: ActionName; readonly session: ForemanSession; readonly note?: string } & (
  | { readonly target: { readonly kind: 'worker'; readonly worker: WorkerStatus } }
  | { readonly target: { readonly kind: 'task'; readonly task: TaskStatusView } }
  | { readonly target: { readonly kind: 'folder' } }
  | { readonly target: { readonly kind: 'overlap'; readonly task: TaskStatusView; readonly other: string } }
);

export interface ActionOutcome {
  readonly ok: boolean;
  readonly message?: string;
}

export interface DashboardHostOptions {
  readonly sessions: () => readonly ForemanSession[];
  /**
   * Fires when a session's state changed, with what changed: the one throttle's event
   * (`ViewsThrottle`, through the registry). The host sends on it at once and does not throttle again.
   */
  readonly onDidChangeSessions: Event<ViewsChange>;
  readonly heartbeats: HeartbeatHistory;
  /** Posts to the webview; resolves false when the webview was not there to take it. */
  readonly post: (message: HostMessage) => PromiseLike<boolean>;
  readonly runAction: (action: ResolvedAction) => Promise<ActionOutcome>;
  readonly liveness: () => LivenessSettings;
  readonly log: (line: string) => void;
  /** Times the sends that are not a change (ready, a view, an activity read) and the activity reads; the system clock unless a test moves it by hand. */
  readonly clock?: Clock;
  readonly activityIntervalMs?: number;
  readonly initialView?: ViewState;
}

/**
 * The dashboard's host side, free of `vscode` so it runs under plain node in tests and benchmarks:
 * it parses every webview message, answers `ready` with a full snapshot, sends each throttled
 * change as a delta (rebuilding only the cards the change named), and checks each action against
 * the current state before running it.
 */
export class DashboardHost extends DisposableBase {
  private view: ViewState;
  private ready = false;
  private visible = true;
  private revision = 0;
  /** What the webview holds (revision `revision`); undefined until it has a full snapshot. */
  private held: DashboardSnapshot | undefined;
  /** Sends that are not a change from the throttle, on the next turn of the clock (a synchronous burst is one send). */
  private readonly sender: { request(): void };
  private readonly cards = new CardCache(heartbeatWindowMs);
  /** The folder the cached cards belong to. */
  private cardsOf: string | undefined;
  private readonly feeds = new Map<string, ActivityFeed>();
  private readonly clock: Clock;
  private readonly handlers: HandlerMap<WebviewMessage>;
  /** Messages posted, for the benchmark and tests. */
  sent = 0;

  constructor(private readonly options: DashboardHostOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.view = options.initialView ?? defaultViewState;
    const soon = this._register(new RunOnceScheduler(() => void this.sendSnapshot(), 0, this.clock));
    this.sender = { request: () => soon.isScheduled || soon.schedule() };
    this._register(options.onDidChangeSessions((change) => this.changed(change)));
    // Feeds come and go with the selected folder (feedOf); whichever are open go with the host.
    this._register({
      dispose: () => {
        for (const feed of this.feeds.values()) feed.dispose();
        this.feeds.clear();
      },
    });
    this.handlers = {
      ready: (message) => {
        if (message.view) this.view = message.view;
        this.ready = true;
        this.held = undefined;
        this.feedOf(this.selected())?.invalidate();
        this.sender.request();
      },
      view: (message) => {
        this.view = message.view;
        this.feedOf(this.selected());
        this.sender.request();
      },
      action: (message) => void this.act(message),
      error: (message) => options.log(`dashboard webview: ${message.message}`),
    };
  }

  /** Every message from the webview comes here; what does not parse is logged and dropped. */
  receive(raw: unknown): void {
    if (this.isDisposed) return;
    const outcome = dispatchMessage(webviewMessageSchema, this.handlers, raw);
    if (!outcome.ok) this.options.log(`dashboard: dropped an invalid message from the webview (${outcome.problem})`);
  }

  /** A hidden panel loses its page; it sends `ready` again when shown. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (!visible) {
      this.ready = false;
      this.held = undefined;
    }
  }

  /** The current view state, for the serializer to persist (the webview persists it too). */
  viewState(): ViewState {
    return this.view;
  }

  private changed(change: ViewsChange): void {
    if (this.isDisposed) return;
    // Another folder's rows changed: nothing shown here moved (the folder list is in `sessionsChanged`).
    const shown = this.selected()?.root;
    const delta = shown === undefined ? undefined : change.deltas.get(shown);
    if (delta) this.cards.forget(delta);
    if (!change.sessionsChanged && !delta) return;
    this.feedOf(this.selected())?.invalidate();
    // The change is already throttled (once per interval, every view at the same moment): send it now.
    if (this.ready && this.visible) void this.sendSnapshot();
  }

  private selected(): ForemanSession | undefined {
    const sessions = this.options.sessions();
    return sessions.find((session) => session.root === this.view.folder) ?? sessions[0];
  }

  private feedOf(session: ForemanSession | undefined): ActivityFeed | undefined {
    if (!session || !this.ready) return undefined;
    for (const [root, feed] of this.feeds) {
      if (root === session.root) continue;
      feed.dispose();
      this.feeds.delete(root);
    }
    let feed = this.feeds.get(session.root);
    if (!feed) {
      feed = new ActivityFeed(session, {
        log: this.options.log,
        onDidLoad: () => this.ready && this.visible && this.sender.request(),
        clock: this.clock,
        ...(this.options.activityIntervalMs !== undefined ? { minIntervalMs: this.options.activityIntervalMs } : {}),
      });
      this.feeds.set(session.root, feed);
      feed.invalidate();
    }
    return feed;
  }

  /** Builds the snapshot being sent now; exposed for tests. */
  buildSnapshot() {
    const now = this.clock.now();
    const sessions = this.options.sessions();
    const session = this.selected();
    const folders: FolderInfo[] = sessions.map((s) => ({ root: s.root, name: s.name, ownerNote: s.ownerNote, restricted: s.restricted }));
    const info = folders.find((folder) => folder.root === session?.root);
    if (this.cardsOf !== session?.root) {
      this.cards.clear();
      this.cardsOf = session?.root;
    }
    return buildDashboardSnapshot({
      now,
      folders,
      view: this.view,
      selected:
        session && info
          ? {
              info,
              status: session.snapshot(),
              heartbeats: (workerId) => this.options.heartbeats.of(session.root, workerId, now),
              states: (workerId) => this.options.heartbeats.statesOf(session.root, workerId, now),
              activity: this.feeds.get(session.root)?.data(),
              liveness: this.options.liveness(),
              heartbeatWindowMs,
              card: (worker, build) => this.cards.card(worker, now, build),
            }
          : undefined,
    });
  }

  private async sendSnapshot(): Promise<void> {
    if (this.isDisposed || !this.ready || !this.visible) return;
    let snapshot;
    try {
      snapshot = this.buildSnapshot();
    } catch (error) {
      this.options.log(`dashboard: could not build the snapshot: ${String(error)}`);
      return;
    }
    this.view = snapshot.view;
    const delta = this.held && dashboardDelta(this.held, snapshot);
    if (delta && isEmptyDelta(delta)) return;
    const baseRevision = this.revision;
    this.held = snapshot;
    this.sent++;
    const delivered = await this.options.post(
      delta ? { type: 'delta', revision: ++this.revision, baseRevision, delta } : { type: 'snapshot', revision: ++this.revision, snapshot },
    );
    // Not delivered: the page is gone (hidden or reloading); its next `ready` asks again.
    if (!delivered) {
      this.ready = false;
      this.held = undefined;
    }
  }

  private async act(message: Extract<WebviewMessage, { type: 'action' }>): Promise<void> {
    const reply = (ok: boolean, text?: string) =>
      void this.options.post({ type: 'actionResult', requestId: message.requestId, ok, ...(text ? { message: text } : {}) });
    const resolved = this.resolve(message);
    if (typeof resolved === 'string') {
      this.options.log(`dashboard: refused ${message.action} on ${describeTarget(message.target)}: ${resolved}`);
      reply(false, resolved);
      this.sender.request();
      return;
    }
    try {
      const outcome = await this.options.runAction(resolved);
      reply(outcome.ok, outcome.message);
    } catch (error) {
      this.options.log(`dashboard: ${message.action} failed: ${String(error)}`);
      reply(false, String(error));
    }
  }

  /** The action's session and entity, or why it cannot run in the current state. */
  private resolve(message: Extract<WebviewMessage, { type: 'action' }>): ResolvedAction | string {
    const session = this.options.sessions().find((s) => s.root === message.folder);
    if (!session) return 'that folder is not open any more';
    const { action, target } = message;
    const note = message.note !== undefined ? { note: message.note } : {};
    if (overlapActionNames.includes(action) !== (target.kind === 'overlap')) return `${action} does not apply to ${describeTarget(target)}`;
    switch (target.kind) {
      case 'folder':
        return folderActions.includes(action) ? { action, session, target: { kind: 'folder' } } : `${action} needs a worker or a task`;
      case 'worker': {
        const worker = session.snapshot().workers.find((w) => w.id === target.id);
        if (!worker) return `no worker ${target.id}`;
        if (!actionsForWorker(worker).includes(action)) return `${target.id} is ${worker.state} now; ${action} does not apply`;
        if (note.note !== undefined && action !== 'requestChanges' && action !== 'sendMessage')
          return 'only request changes and send message take a text';
        return { action, session, target: { kind: 'worker', worker }, ...note };
      }
      case 'task': {
        const tasks = session.snapshot().tasks;
        const task = tasks.find((t) => t.id === target.id);
        if (!task) return `no task ${target.id}`;
        const isParent = task.planningPhase !== 'none' || tasks.some((t) => t.parentId === task.id);
        if (!actionsForTask(task, isParent).includes(action)) return `${target.id} is ${task.status} now; ${action} does not apply`;
        return { action, session, target: { kind: 'task', task } };
      }
      case 'overlap':
        return resolveOverlap(session, action, target.id, target.other);
    }
  }
}

function describeTarget(target: Extract<WebviewMessage, { type: 'action' }>['target']): string {
  if (target.kind === 'overlap') return `the pair ${target.id} and ${target.other}`;
  return target.kind === 'folder' ? 'the folder' : `${target.kind} ${target.id}`;
}

/** An answer to an overlap the engine still reports (on the task's worker or on the task itself). */
function resolveOverlap(session: ForemanSession, action: ActionName, taskId: string, other: string): ResolvedAction | string {
  const status = session.snapshot();
  const task = status.tasks.find((t) => t.id === taskId);
  if (!task) return `no task ${taskId}`;
  const holder = status.workers.find((worker) => worker.taskId === taskId);
  const overlap = [...(holder ? overlapsOf(holder) : []), ...overlapsOf(task)].find((o) => o.taskId === other);
  if (!overlap) return `${taskId} no longer overlaps ${other}`;
  if (!overlapActions(overlap).includes(action)) return `${action} is already the plan for ${taskId} and ${other}`;
  return { action, session, target: { kind: 'overlap', task, other } };
}

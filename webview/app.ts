import { applyDashboardDelta } from '../src/shared/dashboardDelta';
import {
  type ActionName,
  type ActionTarget,
  type DashboardSnapshot,
  type HostMessage,
  type ViewState,
  type WebviewMessage,
  protocolVersion,
} from '../src/shared/protocol';
import { type RenderContext, targetKey } from './context';
import { el, fill } from './dom';
import { duration } from './format';
import { redrawStrips } from './heartbeatStrip';
import { NoteDialog } from './noteDialog';
import { renderActivityFilters, renderActivityList } from './sections/activity';
import { renderAttention } from './sections/attention';
import { renderChains } from './sections/chains';
import { renderHeader } from './sections/header';
import { renderOwners } from './sections/owners';
import { renderStats, renderTimeInState } from './sections/stats';
import { renderTasks } from './sections/tasks';
import { renderWorkers } from './sections/workers';

export interface AppPort {
  post(message: WebviewMessage): void;
  /** Persists the view state across hide/show and window reloads (`vscode.setState`). */
  saveView(view: ViewState): void;
}

type SlotName =
  'header' | 'stats' | 'attention' | 'owners' | 'workers' | 'chains' | 'tasks' | 'activityFilters' | 'activityList' | 'timeInState';

interface Slot {
  readonly element: HTMLElement;
  key: string;
}

/**
 * The dashboard page: keeps the last snapshot, renders each section into its own slot and only
 * re-renders a slot whose data changed (so focus, open dropdowns and hover survive the stream of
 * snapshots), ticks the relative times every second, and sends actions and view changes.
 */
export class App {
  private snapshot: DashboardSnapshot | undefined;
  /** The host's revision of `snapshot`: a delta applies only to the revision it was made against. */
  private revision = -1;
  private view: ViewState;
  /** Local clock minus the host's, measured when a snapshot arrives. */
  private offsetMs = 0;
  private readonly pending = new Map<string, string>();
  private selectedTask: string | null = null;
  private readonly slots: Record<SlotName, Slot>;
  private readonly body: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly statusLine: HTMLElement;
  private readonly notes: NoteDialog;
  private readonly messages: NoteDialog;
  private requestCounter = 0;
  private tickCount = 0;
  private chainWidth = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly port: AppPort,
    initialView: ViewState,
  ) {
    this.view = initialView;
    const slot = (name: SlotName, tag: 'div' | 'section' = 'div'): Slot => ({ element: el(tag, { class: `slot slot-${name}` }), key: '' });
    this.slots = {
      header: slot('header'),
      stats: slot('stats'),
      attention: slot('attention'),
      owners: slot('owners'),
      workers: slot('workers'),
      chains: slot('chains'),
      tasks: slot('tasks'),
      activityFilters: slot('activityFilters'),
      activityList: slot('activityList'),
      timeInState: slot('timeInState'),
    };
    this.statusLine = el('div', { class: 'status-line', attrs: { role: 'status', 'aria-live': 'polite' } });
    this.empty = el('div', { class: 'empty-state' });
    const s = this.slots;
    this.body = el(
      'div',
      { class: 'dashboard' },
      s.header.element,
      s.stats.element,
      s.attention.element,
      s.owners.element,
      s.workers.element,
      s.chains.element,
      el(
        'div',
        { class: 'columns' },
        el('div', { class: 'column' }, s.tasks.element, s.timeInState.element),
        el(
          'section',
          { class: 'panel activity', attrs: { 'aria-label': 'Activity' } },
          el('h2', {}, 'Activity'),
          s.activityFilters.element,
          s.activityList.element,
        ),
      ),
    );
    // The page first, then the dialogs appended to it: filling the root afterwards would detach them
    // (and showModal() on a detached dialog throws, so Request changes and Send message opened nothing).
    fill(root, this.statusLine, this.body, this.empty);
    this.notes = new NoteDialog(root, (workerId, note) => this.send('requestChanges', { kind: 'worker', id: workerId }, note));
    this.messages = new NoteDialog(root, (workerId, text) => this.send('sendMessage', { kind: 'worker', id: workerId }, text), {
      action: 'Send message',
      placeholder: 'What should the agent know now? It reaches the agent mid-run.',
      field: 'Message for the agent',
      button: 'Send',
      empty: 'Write a message.',
    });
    root.removeAttribute('aria-busy');
    this.body.hidden = true;
    setInterval(() => this.tick(), 1000);
    new ResizeObserver(() => this.resized()).observe(root);
  }

  readonly handlers = {
    snapshot: (message: Extract<HostMessage, { type: 'snapshot' }>) => {
      this.revision = message.revision;
      this.show(message.snapshot);
    },
    delta: (message: Extract<HostMessage, { type: 'delta' }>) => {
      if (!this.snapshot || message.baseRevision !== this.revision) {
        // A gap (a message lost while hidden, say): only a full snapshot can say where things are.
        this.revision = -1;
        this.port.post({ type: 'ready', protocol: protocolVersion, view: this.view });
        return;
      }
      this.revision = message.revision;
      this.show(applyDashboardDelta(this.snapshot, message.delta));
    },
    actionResult: (message: Extract<HostMessage, { type: 'actionResult' }>) => {
      this.pending.delete(message.requestId);
      if (!message.ok) this.say(message.message ? `Not done: ${message.message}` : 'Not done.');
      this.render();
    },
  };

  private show(snapshot: DashboardSnapshot): void {
    this.snapshot = snapshot;
    this.offsetMs = Date.now() - snapshot.generatedAt;
    this.view = snapshot.view;
    this.port.saveView(this.view);
    this.render();
  }

  currentView(): ViewState {
    return this.view;
  }

  private hostNow(): number {
    return Date.now() - this.offsetMs;
  }

  private send(action: ActionName, target: ActionTarget, note?: string): void {
    const folder = this.snapshot?.folder;
    if (!folder) return;
    const requestId = `r${Date.now().toString(36)}-${++this.requestCounter}`;
    this.pending.set(requestId, targetKey(action, target));
    this.port.post({ type: 'action', requestId, folder: folder.root, action, target, ...(note !== undefined ? { note } : {}) });
    this.render();
  }

  private setView(patch: Partial<ViewState>): void {
    this.view = { ...this.view, ...patch };
    this.port.saveView(this.view);
    this.port.post({ type: 'view', view: this.view });
  }

  private say(text: string): void {
    this.statusLine.textContent = text;
    this.statusLine.classList.add('visible');
    window.setTimeout(() => {
      if (this.statusLine.textContent === text) this.statusLine.classList.remove('visible');
    }, 8000);
  }

  private render(): void {
    const snapshot = this.snapshot;
    if (!snapshot) return;
    const folder = snapshot.folder;
    this.body.hidden = folder === null;
    this.empty.hidden = folder !== null;
    if (!folder) {
      fill(
        this.empty,
        el('h1', {}, 'Foreman'),
        el(
          'p',
          {},
          'Foreman is not set up in this workspace. Run "Foreman: Initialise" from the Command Palette, then add a worker and a task.',
        ),
      );
      return;
    }
    const pendingKeys = new Set(this.pending.values());
    const ctx: RenderContext = {
      snapshot,
      folder,
      hostNow: () => this.hostNow(),
      act: (action, target) => this.send(action, target),
      isPending: (action, target) => pendingKeys.has(targetKey(action, target)),
      setView: (patch) => this.setView(patch),
      requestChanges: (workerId, title) => this.notes.open(workerId, title),
      sendMessage: (workerId, title) => this.messages.open(workerId, title),
    };
    const pendingKey = [...pendingKeys].join(',');
    this.chainWidth = this.chainWidth || this.slots.chains.element.clientWidth || this.root.clientWidth;
    const { view } = snapshot;
    this.update(
      'header',
      [folder.name, folder.baseBranch, folder.workerCounts, snapshot.folders, folder.ownerNote, folder.restricted, pendingKey],
      () => renderHeader(ctx),
    );
    this.update('stats', folder.stats, () => renderStats(ctx));
    this.update('attention', [folder.attention, pendingKey], () => renderAttention(ctx));
    this.update('owners', folder.owners, () => renderOwners(ctx));
    this.update('workers', [folder.workers.items, folder.workers.total, folder.workers.page, folder.liveness, pendingKey], () =>
      renderWorkers(ctx),
    );
    this.update('chains', [folder.chains, this.selectedTask, this.chainWidth, pendingKey], () =>
      renderChains(ctx, {
        selected: this.selectedTask,
        width: this.chainWidth - 24,
        select: (id) => ((this.selectedTask = id), this.render()),
      }),
    );
    this.update('tasks', [folder.tasks, pendingKey], () => renderTasks(ctx));
    this.update('activityFilters', [view.activity, folder.activity.workers], () => renderActivityFilters(ctx));
    this.update('activityList', [folder.activity, view.activity.limit], () => renderActivityList(ctx));
    this.update('timeInState', [folder.stats.timeInState, folder.stats.transitions], () => renderTimeInState(ctx));
    this.tick(true);
  }

  /** Re-renders one slot when its data changed, keeping keyboard focus on the same control. */
  private update(name: SlotName, data: unknown, render: () => HTMLElement | null): void {
    const slot = this.slots[name];
    const key = JSON.stringify(data);
    if (key === slot.key) return;
    slot.key = key;
    const active = document.activeElement;
    const focusKey =
      active && slot.element.contains(active) ? active.closest('[data-focus-key]')?.getAttribute('data-focus-key') : undefined;
    const content = render();
    fill(slot.element, content);
    slot.element.hidden = content === null;
    if (focusKey) {
      for (const candidate of slot.element.querySelectorAll<HTMLElement | SVGElement>('[data-focus-key]')) {
        if (candidate.getAttribute('data-focus-key') === focusKey) {
          candidate.focus();
          break;
        }
      }
    }
  }

  /** Relative times move every second; heartbeat strips every other second. */
  private tick(all = false): void {
    const now = this.hostNow();
    for (const element of this.root.querySelectorAll<HTMLElement>('.tick[data-since]')) {
      const since = Number(element.getAttribute('data-since'));
      const text = duration(now - since);
      element.textContent = element.getAttribute('data-format') === 'ago' ? `${text} ago` : text;
    }
    if (all || ++this.tickCount % 2 === 0) redrawStrips(this.root, now);
  }

  private resized(): void {
    const width = this.slots.chains.element.clientWidth || this.root.clientWidth;
    if (Math.abs(width - this.chainWidth) < 32) return;
    this.chainWidth = width;
    this.render();
  }
}

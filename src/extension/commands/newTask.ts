import * as vscode from 'vscode';
import { taskIdSchema } from '../../core/ids';
import type { TaskStatusView } from '../../engine/statusView';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import { CommandId } from './commandIds';
import { type CommandTarget, askValidated, pickSession, send } from './pickers';
import { draftHint, draftText, parseTaskDraft } from './taskDraft';

/** What a draft editor will become: the folder's task, the title asked for, and where it goes if already chosen. */
interface Draft {
  readonly session: ForemanSession;
  readonly title: string;
  /** Set by "New Task After This": the task it waits for. */
  readonly after?: TaskStatusView;
}

/** Statuses a new task can still wait for; after a done or cancelled one it would run (or never run) at once. */
const waitableStatuses = new Set(['idle', 'queued', 'running', 'failed']);
const draftContext = 'foreman.taskDraft';

/**
 * New Task (palette, Queue view) and New Task After This (a task's context menu): a title, then an
 * untitled markdown editor for a prompt of any length; "Queue Task" in its title bar asks where the
 * task goes (the end of the queue, or after a task) and for an optional id, then queues it.
 */
export function registerNewTaskCommands(registry: SessionRegistry): vscode.Disposable[] {
  const drafts = new Map<string, Draft>();
  const updateContext = () =>
    void vscode.commands.executeCommand(
      'setContext',
      draftContext,
      drafts.has(vscode.window.activeTextEditor?.document.uri.toString() ?? ''),
    );

  const openDraft = async (session: ForemanSession, after?: TaskStatusView): Promise<void> => {
    const title = await askValidated({
      title: after ? vscode.l10n.t('Foreman: New Task after "{0}"', after.title) : vscode.l10n.t('Foreman: New Task'),
      prompt: vscode.l10n.t('Title of the task (the prompt comes next, in an editor)'),
      rule: 'title',
    });
    if (!title) return;
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: draftText(title, draftHint(vscode.l10n)) });
    drafts.set(document.uri.toString(), { session, title, ...(after ? { after } : {}) });
    // The cursor starts below the hint, set as the editor opens: a person types at once.
    const end = document.lineAt(document.lineCount - 1).range.end;
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(end, end) });
    updateContext();
  };

  /** `planFirst`: the agent plans and waits for a person's approval before it changes anything. */
  const queueDraft = async (planFirst: boolean): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    const draft = editor && drafts.get(editor.document.uri.toString());
    if (!editor || !draft) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Foreman: this editor is not a task draft. Start one with "Foreman: New Task".'),
      );
      return;
    }
    const { title, prompt } = parseTaskDraft(editor.document.getText(), draft.title, draftHint(vscode.l10n));
    const after = draft.after ? draft.after.id : await pickPlacement(draft.session);
    if (after === undefined) return;
    const id = await askTaskId(draft.session);
    if (id === undefined) return;
    const args = { title, prompt, ...(id ? { id } : {}), ...(after ? { after } : {}), ...(planFirst ? { planFirst } : {}) };
    const done = planFirst ? vscode.l10n.t('Task queued (plan first): {0}', title) : vscode.l10n.t('Task queued: {0}', title);
    const queued = await send(draft.session, { command: 'task.add', args }, done);
    if (!queued.ok) return;
    drafts.delete(editor.document.uri.toString());
    // The draft was sent; closing it must not ask whether to save an untitled file.
    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    updateContext();
  };

  return [
    vscode.commands.registerCommand(CommandId.newTask, async () => {
      const session = await pickSession(registry);
      if (session) await openDraft(session);
    }),
    vscode.commands.registerCommand(CommandId.newTaskAfter, async (target: CommandTarget) => {
      if (target?.kind === 'task') return openDraft(target.session, target.task);
      if (target?.kind === 'chain') return openDraft(target.session, target.parent);
      const session = await pickSession(registry);
      if (session) await openDraft(session);
    }),
    vscode.commands.registerCommand(CommandId.queueTaskDraft, () => queueDraft(false)),
    vscode.commands.registerCommand(CommandId.queueTaskDraftPlanFirst, () => queueDraft(true)),
    vscode.window.onDidChangeActiveTextEditor(updateContext),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (drafts.delete(document.uri.toString())) updateContext();
    }),
  ];
}

/** Where the task goes: '' for the end of the queue, a task id to wait for, undefined when dismissed. */
async function pickPlacement(session: ForemanSession): Promise<string | undefined> {
  const tasks = session.snapshot().tasks.filter((task) => waitableStatuses.has(task.status));
  if (tasks.length === 0) return '';
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: `$(list-ordered) ${vscode.l10n.t('At the end of the queue')}`,
        description: vscode.l10n.t('the next idle worker takes it'),
        after: '',
      },
      { label: vscode.l10n.t('After a task'), kind: vscode.QuickPickItemKind.Separator, after: '' },
      ...tasks.map((task) => ({
        label: `$(arrow-right) ${vscode.l10n.t('After: {0}', task.title)}`,
        description: `${task.id} · ${task.status}`,
        detail: vscode.l10n.t('waits until that task is done'),
        after: task.id,
      })),
    ],
    {
      title: vscode.l10n.t('Foreman: where does the task go?'),
      placeHolder: vscode.l10n.t('The end of the queue, or after a task'),
      matchOnDescription: true,
    },
  );
  return picked?.after;
}

/** An optional id: empty for a generated one, else checked as the engine checks it; undefined when dismissed. */
function askTaskId(session: ForemanSession): Thenable<string | undefined> {
  const taken = new Set(session.snapshot().tasks.map((task) => task.id));
  return vscode.window.showInputBox({
    title: vscode.l10n.t('Foreman: task id (optional)'),
    prompt: vscode.l10n.t('An id to name the task by in `foreman` commands; Enter for a generated one'),
    placeHolder: vscode.l10n.t('e.g. add-license'),
    ignoreFocusOut: true,
    validateInput: (text) => {
      if (text === '') return undefined;
      const checked = taskIdSchema.safeParse(text);
      const message = !checked.success
        ? (checked.error.issues[0]?.message ?? vscode.l10n.t('invalid'))
        : taken.has(text)
          ? vscode.l10n.t('a task {0} exists already', text)
          : undefined;
      return message && { message, severity: vscode.InputBoxValidationSeverity.Error };
    },
  });
}

import * as vscode from 'vscode';
import { taskIdSchema, titleSchema, workerIdSchema } from '../../core/ids';
import { type RequestInput, parseRequest } from '../../core/requests';
import { type Result, invalid } from '../../core/result';
import type { TaskStatusView, WorkerStatus } from '../../engine/statusView';
import type { WorkerNode } from '../tree/workersTree';
import type { QueueNode } from '../tree/queueTree';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';

/** What a command receives: a tree node when invoked from a view, nothing from the palette. */
export type CommandTarget = WorkerNode | QueueNode | undefined;

export async function pickSession(registry: SessionRegistry): Promise<ForemanSession | undefined> {
  const sessions = registry.sessions();
  if (sessions.length <= 1) {
    if (!sessions[0])
      void vscode.window.showWarningMessage(
        vscode.l10n.t('Foreman is not initialised in this workspace. Run "Foreman: Initialise" first.'),
      );
    return sessions[0];
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((session) => ({ label: session.name, description: session.root, session })),
    { title: vscode.l10n.t('Foreman: which folder?') },
  );
  return picked?.session;
}

/**
 * The worker a command is about: the clicked row, or a quick pick of workers in the given states.
 * `onlyOne: 'take'` (commands that only show something: a log, a diff, a terminal) takes the only
 * candidate without asking; commands that change state always ask, so a click is a choice.
 */
export async function pickWorker(
  registry: SessionRegistry,
  target: CommandTarget,
  states: readonly string[],
  title: string,
  onlyOne: 'ask' | 'take' = 'ask',
): Promise<{ session: ForemanSession; worker: WorkerStatus } | undefined> {
  if (target?.kind === 'worker') return { session: target.session, worker: target.worker };
  const session = await pickSession(registry);
  if (!session) return undefined;
  const workers = session.snapshot().workers.filter((worker) => states.includes(worker.state));
  if (workers.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No worker is {0}.', orList(states)));
    return undefined;
  }
  const [only] = workers;
  if (only && workers.length === 1 && onlyOne === 'take') return { session, worker: only };
  const picked = await vscode.window.showQuickPick(
    workers.map((worker) => ({
      label: worker.id,
      description: `${worker.state}${worker.taskId ? ` · ${worker.taskId}` : ''}`,
      detail: worker.livenessReason,
      worker,
    })),
    { title, placeHolder: vscode.l10n.t('Pick a worker') },
  );
  return picked && { session, worker: picked.worker };
}

export async function pickTask(
  session: ForemanSession,
  target: CommandTarget,
  statuses: readonly string[],
  title: string,
): Promise<TaskStatusView | undefined> {
  if (target?.kind === 'task') return target.task;
  const tasks = session
    .snapshot()
    .tasks.filter((task) => statuses.includes(task.status) && task.planningPhase === 'none' && !task.blockedBy);
  if (tasks.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No {0} task is ready.', orList(statuses)));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    tasks.map((task) => ({ label: task.title, description: `${task.id} · ${task.status}`, task })),
    { title, placeHolder: vscode.l10n.t('Pick a task'), matchOnDescription: true },
  );
  return picked?.task;
}

/** An input box whose text is checked with the same zod rule the engine uses, as the user types. */
export function askValidated(options: {
  title: string;
  prompt: string;
  placeHolder?: string;
  value?: string;
  rule: 'workerId' | 'taskId' | 'title' | 'note';
  /** A check beyond the rule's shape, as the person types (an id already taken): the reason, or undefined. */
  refuse?: (text: string) => string | undefined;
}): Thenable<string | undefined> {
  const schema = { workerId: workerIdSchema, taskId: taskIdSchema, title: titleSchema, note: titleSchema.max(10_000) }[options.rule];
  return vscode.window.showInputBox({
    title: options.title,
    prompt: options.prompt,
    placeHolder: options.placeHolder,
    value: options.value,
    ignoreFocusOut: true,
    validateInput: (text) => {
      const checked = schema.safeParse(text);
      const problem = checked.success ? options.refuse?.(text) : (checked.error.issues[0]?.message ?? vscode.l10n.t('invalid'));
      return problem === undefined ? undefined : { message: problem, severity: vscode.InputBoxValidationSeverity.Error };
    },
  });
}

/** Sends a request and shows a refusal as a message that says what to do; returns the result. */
export async function send(session: ForemanSession, input: RequestInput, success?: string): Promise<Result<unknown>> {
  const parsed = parseRequest({ ...input, actor: 'vscode' });
  const result = parsed.ok ? await session.execute(parsed.request) : invalid('badRequest', parsed.message);
  // The engine's refusal is data, in its own words; only the frame around it is translated.
  if (!result.ok) void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: {0}', result.message));
  else if (success) void vscode.window.setStatusBarMessage(`$(check) ${success}`, 4000);
  return result;
}

/** "IDLE or FAILED": states and statuses are the engine's names, joined in the person's language. */
function orList(names: readonly string[]): string {
  const [first = '', ...rest] = names;
  return rest.reduce((list, name) => vscode.l10n.t('{0} or {1}', list, name), first);
}

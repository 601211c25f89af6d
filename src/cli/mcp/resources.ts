/**
 * What the MCP server offers to read: the board (the status snapshot as JSON) and a task's agent
 * transcript (its latest attempt's events as markdown, as the editor's transcript view renders
 * them). Both are read the way the CLI reads them: the board through the engine, the transcript
 * from the workspace's `.foreman/logs/`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { taskIdSchema } from '../../core/ids';
import { type Result, invalid, notFound, ok } from '../../core/result';
import type { Target } from '../route';
import type { Caller } from './caller';
import { foremanDir, type UnexpectedFailure } from '../../host/endpointAccess';
import { attemptPaths, renderTranscript } from '../../host/infraParts';

export const boardUri = 'foreman://board';
export const transcriptTemplate = 'foreman://tasks/{task}/transcript';

/** The tasks the board resource and the transcript list show, as many as `foreman status` does. */
const boardLimit = 100;

export interface ResourceText {
  readonly uri: string;
  readonly mimeType: string;
  readonly text: string;
}

export interface ListedResource {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  readonly description?: string;
}

export function transcriptUri(taskId: string): string {
  return `foreman://tasks/${taskId}/transcript`;
}

/** The board, and a transcript for each task an agent has worked on. */
export async function listResources(caller: Caller): Promise<ListedResource[]> {
  const board: ListedResource = {
    uri: boardUri,
    name: 'board',
    mimeType: 'application/json',
    description: 'Workers and tasks, as `foreman status --json` shows them.',
  };
  const status = await caller.send('status', { limit: boardLimit });
  if (!status.ok) return [board];
  const transcripts = status.value.tasks
    .filter((task) => task.attempt > 0)
    .map((task) => ({ uri: transcriptUri(task.id), name: `transcript ${task.id}`, mimeType: 'text/markdown', description: task.title }));
  return [board, ...transcripts];
}

/** A resource's text, or why not: a failure in the engine's words. */
type Read<T> = Result<T> | UnexpectedFailure;

export async function readResource(caller: Caller, uri: string): Promise<Read<ResourceText>> {
  if (uri === boardUri) {
    const status = await caller.send('status', { limit: boardLimit });
    return status.ok ? ok({ uri, mimeType: 'application/json', text: JSON.stringify(status.value, null, 2) }) : status;
  }
  const match = /^foreman:\/\/tasks\/([^/]+)\/transcript$/.exec(uri);
  if (!match?.[1]) return invalid('unknownResource', `no resource ${uri}; known: ${boardUri}, ${transcriptTemplate}`);
  const text = await transcriptOf(caller, decodeURIComponent(match[1]));
  return text.ok ? ok({ uri, mimeType: 'text/markdown', text: text.value }) : text;
}

/** The latest attempt's transcript; the task's attempt comes from the engine, the events from its log folder. */
async function transcriptOf(caller: Caller, taskId: string): Promise<Read<string>> {
  const id = taskIdSchema.safeParse(taskId);
  if (!id.success) return invalid('invalidId', `task: ${id.error.issues[0]?.message ?? 'not a task id'} (got '${taskId}')`);
  const logs = logDirOf(caller.target);
  if (!logs.ok) return logs;
  const status = await caller.send('status', { ids: { workers: [], tasks: [id.data] } });
  if (!status.ok) return status;
  const task = status.value.tasks.find((candidate) => candidate.id === id.data);
  if (!task) return notFound('task', id.data);
  const header = `# ${task.id} · ${task.title}`;
  if (task.attempt === 0) return ok(`${header}\n\n*No agent has worked on this task yet (${task.status}).*\n`);
  const eventsFile = attemptPaths(logs.value, task.id, task.attempt).eventsFile;
  let events = '';
  try {
    events = fs.readFileSync(eventsFile, 'utf8');
  } catch {
    // Not written yet, or an agent kind without an event stream: the header says which attempt.
  }
  return ok([`${header} · attempt ${task.attempt} (${task.status})`, '', renderTranscript(events.split('\n'))].join('\n'));
}

/** The logs live in the workspace's `.foreman/`; an owner reached by its socket alone does not say where that is. */
function logDirOf(target: Target): Result<string> {
  if (target.kind === 'workspace') return ok(path.join(foremanDir(target.repoRoot), 'logs'));
  return invalid(
    'noWorkspace',
    'transcripts are read from the workspace folder; start `foreman mcp` with --dir <repo> (or FOREMAN_DIR), not only FOREMAN_ENDPOINT.',
  );
}

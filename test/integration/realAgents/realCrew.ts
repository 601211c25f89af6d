/**
 * Crews of real agent CLIs (Claude Code, Codex from devDependencies) for the integration tests:
 * the crew harness's repository and `foreman serve`, one scripted model server per crew (the only
 * stand-in: the model is out of reach offline), and agent profiles that point each CLI at it the
 * way a user points an agent at another API endpoint — the profile's `command` and `env`.
 */
import { after } from 'node:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { claudeBinary, claudeEnvironment, codexBinary, codexEnvironment, makeHome } from '../../support/agentCli';
import { type ScriptStep, type ScriptedModel, startScriptedModel } from '../../support/scriptedModel';
import { type CrewRepo, type Server, type Status, makeCrew } from '../crew/crewHarness';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

export interface RealCrew {
  readonly crew: CrewRepo;
  readonly model: ScriptedModel;
  readonly home: string;
}

/** Only what a string-valued `env` may hold. */
function stringsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * A crew whose worker `ada` runs the real `kind` CLI against a scripted model. `profile` adds to
 * the agent profile (allowedTools, args…); `settings` to `.foreman/settings.json`.
 */
export async function makeRealCrew(
  kind: 'claude' | 'codex',
  options: { profile?: Record<string, unknown>; settings?: Record<string, unknown>; files?: Record<string, string> } = {},
): Promise<RealCrew> {
  const model = await startScriptedModel();
  const home = makeHome();
  cleanups.push(
    () => model.close(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  // Both CLIs keep their default retries, as users run them: a scripted failure sends `retry-after`
  // to keep the waits short, and Foreman must see the retries (REAL-AGENTS-TESTING.md).
  const env = kind === 'claude' ? claudeEnvironment(model.url, home) : codexEnvironment(model.url, home);
  const profile = { kind, command: kind === 'claude' ? claudeBinary : codexBinary, env: stringsOf(env), ...options.profile };
  const crew = await makeCrew({
    ...(options.files ? { files: options.files } : {}),
    settings: { agents: { [kind]: profile }, ...options.settings },
  });
  await crew.ok(['worker', 'add', 'ada', '--agent', kind]);
  return { crew, model, home };
}

/** The main-loop requests the model answered, with the text of every message they carried. */
export function conversations(model: ScriptedModel): string[] {
  return model.requests.filter((request) => request.mainLoop).map((request) => JSON.stringify(request.body));
}

/** The normalised events of a task attempt (`.foreman/logs/<task>/attempt-<n>.events.jsonl`). */
export function eventsOf(repoRoot: string, taskId: string, attempt: number): Array<Record<string, unknown>> {
  const text = readFileSync(join(repoRoot, '.foreman', 'logs', taskId, `attempt-${attempt}.events.jsonl`), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * A review round: plays `script`, asks ada for changes with `note`, and waits until ada is in
 * review again with `file` on the task branch. Returns the status then and the main-loop requests
 * the model saw in this round.
 */
export async function requestChangesRound(
  real: RealCrew,
  server: Server,
  round: { taskId: string; note: string; script: readonly ScriptStep[]; file: string },
): Promise<{ status: Status; requests: string[] }> {
  const { crew, model } = real;
  const before = conversations(model).length;
  model.play(round.script);
  await crew.ok(['request-changes', 'ada', '--note', round.note]);
  const status = await crew.waitFor(
    'the second round in review',
    (current) =>
      crew.worker(current, 'ada').state === 'IN_REVIEW' && crew.tryGit(['show', `ada/${round.taskId}:${round.file}`]) !== undefined,
    60_000,
    server,
  );
  return { status, requests: conversations(model).slice(before) };
}

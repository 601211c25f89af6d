/**
 * The real Claude Code and Codex CLIs (devDependencies), run directly — no Foreman — against the
 * scripted model on 127.0.0.1, in temporary git repositories. These pin the behaviour Foreman's
 * agent profiles rely on: flags, permissions, hooks, event output, last-message files, sessions.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { claudeBinary, claudeEnvironment, claudeProjectDir, codexBinary, codexEnvironment, makeHome } from '../../support/agentCli';
import { runProcess, type Run } from '../../support/runProcess';
import { isRecord, startScriptedModel, type RecordedRequest, type ScriptedModel } from '../../support/scriptedModel';

const homes: string[] = [];
const models: ScriptedModel[] = [];
after(async () => {
  await Promise.all(models.map((model) => model.close()));
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A scripted model, a HOME and a git repository (inside that HOME) of the test's own. */
async function setup(): Promise<{ model: ScriptedModel; home: string; repo: string }> {
  const model = await startScriptedModel();
  models.push(model);
  const home = makeHome();
  homes.push(home);
  const repo = join(home, 'repo');
  mkdirSync(repo);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
  return { model, home, repo };
}

type JsonObject = Record<string, unknown>;

/** The JSON objects of a JSON-lines output; other lines (warnings) are skipped. */
function jsonLines(output: string): JsonObject[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    const value = JSON.parse(line) as unknown;
    return isRecord(value) ? [value] : [];
  });
}

function only(lines: JsonObject[], type: string): JsonObject {
  const found = lines.filter((line) => line['type'] === type);
  assert.equal(found.length, 1, `one ${type} line in ${JSON.stringify(lines.map((line) => line['type']))}`);
  return found[0] as JsonObject;
}

function describeRun(run: Run): string {
  return `exit ${String(run.code)}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
}

/** How many messages (Claude) or input items (Codex) the first main-loop request carried. */
function firstConversationLength(requests: readonly RecordedRequest[]): number {
  const first = requests.find((request) => request.mainLoop);
  assert.ok(first && isRecord(first.body), 'a main-loop request');
  const list = first.body['messages'] ?? first.body['input'];
  assert.ok(Array.isArray(list));
  return list.length;
}

/** A hook command that appends its stdin (one JSON payload) and the worker id it saw to `file`. */
function recordingHook(file: string) {
  // The payload arrives with a trailing newline; JSON has no raw newlines inside, so dropping them keeps one record a line.
  return {
    type: 'command',
    command: `(printf '{"worker":"%s","payload":' "$FOREMAN_WORKER_ID"; cat; echo '}') | tr -d '\\n' >> ${file}; echo >> ${file}`,
  };
}

function readRecords(file: string): { worker: string; payload: JsonObject }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { worker: string; payload: JsonObject });
}

interface ClaudeRunOptions {
  readonly allow: readonly string[];
  readonly extraArgs?: readonly string[];
  readonly environment?: NodeJS.ProcessEnv;
}

function runClaude(context: { model: ScriptedModel; home: string; repo: string }, prompt: string, options: ClaudeRunOptions): Promise<Run> {
  const hookLog = join(context.home, 'hooks.jsonl');
  const settings = join(context.home, 'settings.json');
  writeFileSync(
    settings,
    JSON.stringify({
      permissions: { allow: options.allow },
      hooks: { PreToolUse: [{ matcher: '*', hooks: [recordingHook(hookLog)] }], Stop: [{ hooks: [recordingHook(hookLog)] }] },
    }),
  );
  const args = [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'acceptEdits',
    '--settings',
    settings,
    ...(options.extraArgs ?? []),
    '--',
    prompt,
  ];
  const env = claudeEnvironment(context.model.url, context.home, { FOREMAN_WORKER_ID: 'w-1', ...options.environment });
  return runProcess(claudeBinary, args, { cwd: context.repo, env });
}

describe('real Claude Code against the scripted model', () => {
  it('runs an allowed Bash command, fires hooks with the worker environment, and reports cost and usage', async () => {
    const context = await setup();
    const sessionId = randomUUID();
    context.model.play([{ bash: 'echo hi > a.txt' }, { text: 'Wrote a.txt' }]);
    const run = await runClaude(context, 'Write hi to a.txt', {
      allow: ['Bash(*)', 'Write', 'Edit', 'Read'],
      extraArgs: ['--session-id', sessionId],
    });

    assert.equal(run.code, 0, describeRun(run));
    assert.equal(readFileSync(join(context.repo, 'a.txt'), 'utf8'), 'hi\n');
    const lines = jsonLines(run.stdout);
    const init = lines.find((line) => line['type'] === 'system' && line['subtype'] === 'init');
    assert.equal(init?.['session_id'], sessionId);
    const result = only(lines, 'result');
    assert.equal(result['subtype'], 'success');
    assert.equal(result['is_error'], false);
    assert.equal(result['result'], 'Wrote a.txt');
    assert.equal(result['session_id'], sessionId);
    assert.deepEqual(result['permission_denials'], []);
    assert.ok(typeof result['total_cost_usd'] === 'number' && result['total_cost_usd'] > 0);
    assert.ok(isRecord(result['usage']) && typeof result['usage']['input_tokens'] === 'number' && result['usage']['input_tokens'] > 1000);

    const hooks = readRecords(join(context.home, 'hooks.jsonl'));
    assert.deepEqual(
      hooks.map((record) => record.payload['hook_event_name']),
      ['PreToolUse', 'Stop'],
    );
    assert.ok(
      hooks.every((record) => record.worker === 'w-1'),
      'hooks inherit the environment of the claude process',
    );
    assert.equal(hooks[0]?.payload['tool_name'], 'Bash');
    assert.equal(hooks[1]?.payload['last_assistant_message'], 'Wrote a.txt');
    assert.ok(
      existsSync(join(claudeProjectDir(context.home, context.repo), `${sessionId}.jsonl`)),
      'the session file is under ~/.claude/projects/<slug>/',
    );
  });

  it('denies Bash outside the allow-list without waiting: the tool result is an error and the result lists the denial', async () => {
    const context = await setup();
    // A command acceptEdits does not auto-approve (`echo > file` it would).
    context.model.play([{ bash: `node -e 'require("fs").writeFileSync("a.txt", "x")'` }, { text: 'Could not run it' }]);
    const run = await runClaude(context, 'Write a.txt', { allow: ['Write', 'Edit', 'Read'] });

    assert.equal(run.code, 0, describeRun(run));
    assert.equal(existsSync(join(context.repo, 'a.txt')), false);
    const lines = jsonLines(run.stdout);
    const toolResult = JSON.stringify(lines.find((line) => line['type'] === 'user'));
    assert.match(toolResult, /"is_error":true/);
    assert.match(toolResult, /requires approval/);
    const denials = only(lines, 'result')['permission_denials'];
    assert.ok(Array.isArray(denials) && denials.length === 1);
    assert.equal((denials[0] as JsonObject)['tool_name'], 'Bash');
  });

  it('resends the earlier conversation on --resume', async () => {
    const context = await setup();
    const sessionId = randomUUID();
    const allow = ['Bash(*)', 'Write', 'Edit', 'Read'];
    context.model.play([{ bash: 'echo one > one.txt' }, { text: 'First done' }]);
    const first = await runClaude(context, 'First task', { allow, extraArgs: ['--session-id', sessionId] });
    assert.equal(first.code, 0, describeRun(first));
    const firstLength = firstConversationLength(context.model.requests);

    const resumed = await startScriptedModel();
    models.push(resumed);
    resumed.play([{ text: 'Second done' }]);
    const second = await runClaude({ ...context, model: resumed }, 'Second task', { allow, extraArgs: ['--resume', sessionId] });
    assert.equal(second.code, 0, describeRun(second));
    assert.equal(only(jsonLines(second.stdout), 'result')['session_id'], sessionId);
    assert.ok(firstConversationLength(resumed.requests) > firstLength + 1, 'the resumed request carries the first turn');
    assert.match(JSON.stringify(resumed.requests.find((request) => request.mainLoop)?.body), /First task[\s\S]*Second task/);
  });

  // Claude Code retries a 401 too: ten times over about three minutes of its own backoff, which
  // ignores `retry-after` for a 401. Its documented CLAUDE_CODE_MAX_RETRIES (default 10) shortens
  // that to two retries here; the retrying itself stays on, and the test holds that it happened.
  it('gives up on 401 after retrying: exit 1, an error result, more than one request', async () => {
    const context = await setup();
    context.model.failWith(401, 1);
    const run = await runClaude(context, 'Anything', { allow: [], environment: { CLAUDE_CODE_MAX_RETRIES: '2' } });
    assert.equal(run.code, 1, describeRun(run));
    const lines = jsonLines(run.stdout);
    assert.equal(lines.find((line) => line['type'] === 'assistant')?.['error'], 'authentication_failed');
    const result = only(lines, 'result');
    assert.equal(result['is_error'], true);
    assert.equal(result['api_error_status'], 401);
    const attempts = context.model.requests.filter((request) => request.api === 'anthropic' && request.mainLoop).length;
    assert.ok(attempts > 1, `Claude retried the request before giving up (${attempts} requests)`);
  });
});

function runCodex(context: { model: ScriptedModel; home: string; repo: string }, args: readonly string[]): Promise<Run> {
  // Codex's own retries, as users run it.
  const env = codexEnvironment(context.model.url, context.home);
  return runProcess(codexBinary, args, { cwd: context.repo, env });
}

describe('real Codex against the scripted model', () => {
  it('runs a command, writes the last message file, and reports usage', async () => {
    const context = await setup();
    const lastMessage = join(context.home, 'last.txt');
    context.model.play([{ bash: 'echo hi > a.txt' }, { text: 'Wrote a.txt' }]);
    const run = await runCodex(context, ['exec', '--json', '--sandbox', 'workspace-write', '-o', lastMessage, '--', 'Write hi to a.txt']);

    assert.equal(run.code, 0, describeRun(run));
    assert.equal(readFileSync(join(context.repo, 'a.txt'), 'utf8'), 'hi\n');
    assert.equal(readFileSync(lastMessage, 'utf8'), 'Wrote a.txt');
    const lines = jsonLines(run.stdout);
    assert.match(String(only(lines, 'thread.started')['thread_id']), /^[0-9a-f-]{36}$/);
    const commands = lines.filter(
      (line) => line['type'] === 'item.completed' && isRecord(line['item']) && line['item']['type'] === 'command_execution',
    );
    assert.equal(commands.length, 1);
    assert.equal((commands[0]?.['item'] as JsonObject)['exit_code'], 0);
    const usage = only(lines, 'turn.completed')['usage'];
    assert.ok(isRecord(usage) && typeof usage['input_tokens'] === 'number' && usage['input_tokens'] > 1000);
    assert.ok(typeof usage['output_tokens'] === 'number' && usage['output_tokens'] > 0);
  });

  it('resends the earlier conversation on exec resume (flags before `resume`)', async () => {
    const context = await setup();
    context.model.play([{ bash: 'echo one > one.txt' }, { text: 'First done' }]);
    const first = await runCodex(context, ['exec', '--json', '--sandbox', 'workspace-write', '--', 'First task']);
    assert.equal(first.code, 0, describeRun(first));
    const threadId = String(only(jsonLines(first.stdout), 'thread.started')['thread_id']);
    const firstLength = firstConversationLength(context.model.requests);

    const resumed = await startScriptedModel();
    models.push(resumed);
    resumed.play([{ bash: 'echo two > two.txt' }, { text: 'Second done' }]);
    const lastMessage = join(context.home, 'last.txt');
    const second = await runCodex({ ...context, model: resumed }, [
      'exec',
      '--json',
      '--sandbox',
      'workspace-write',
      '-o',
      lastMessage,
      'resume',
      threadId,
      '--',
      'Second task',
    ]);
    assert.equal(second.code, 0, describeRun(second));
    assert.equal(only(jsonLines(second.stdout), 'thread.started')['thread_id'], threadId);
    assert.ok(existsSync(join(context.repo, 'two.txt')));
    assert.equal(readFileSync(lastMessage, 'utf8'), 'Second done');
    assert.ok(firstConversationLength(resumed.requests) > firstLength + 1, 'the resumed request carries the first turn');
    assert.match(JSON.stringify(resumed.requests.find((request) => request.mainLoop)?.body), /First task[\s\S]*Second task/);
  });

  // Codex as users run it retries even a 401 (its default request_max_retries, with backoff: about
  // 8 s here) and then fails the turn; the retries are part of what is held, not switched off.
  it('gives up on 401 after its default retries: exit 1, turn.failed, more than one request', async () => {
    const context = await setup();
    context.model.failWith(401);
    const run = await runCodex(context, ['exec', '--json', '--sandbox', 'workspace-write', '--', 'Anything']);
    assert.equal(run.code, 1, describeRun(run));
    const failed = only(jsonLines(run.stdout), 'turn.failed');
    assert.match(JSON.stringify(failed), /401 Unauthorized/);
    const attempts = context.model.requests.filter((request) => request.api === 'openai').length;
    assert.ok(attempts > 1, `Codex retried the request before giving up (${attempts} requests)`);
  });

  it('rejects --full-auto with exit 2', async () => {
    const context = await setup();
    const run = await runCodex(context, ['exec', '--full-auto', '--json', '--', 'Anything']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unexpected argument '--full-auto' found/);
  });
});

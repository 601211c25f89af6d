/**
 * Codex's `exec --json` lines as 0.169 printed them against the scripted server
 * (REAL-AGENTS-TESTING.md): usage counted as deltas of the thread's total, cache tokens apart and
 * priced, reconnect lines as retries, the inner command of its shell wrapper, its refusals as errors.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { priceOf } from '../../../src/core/modelPrices';
import { codexParser } from '../../../src/infra/agents/kinds/codex';
import { codexModel } from '../../../src/infra/agents/kinds/codexUsage';
import { unwrapShellCommand } from '../../../src/core/shellCommand';
import { resolveProfile } from '../../../src/infra/agents/profiles';

const thread = '01a221c2-17ec-73a2-b0c7-b97aa55da69e';
const started = `{"type":"thread.started","thread_id":"${thread}"}`;
const completed = (input: number, cached: number, output: number) =>
  `{"type":"turn.completed","usage":{"input_tokens":${input},"cached_input_tokens":${cached},"cache_write_input_tokens":0,"output_tokens":${output},"reasoning_output_tokens":0}}`;

describe('Codex usage', () => {
  it('counts a resumed thread once: the earlier runs of the attempt are taken off its total, cache apart, priced', () => {
    const folder = mkdtempSync(join(tmpdir(), 'codex-usage-'));
    const eventsFile = join(folder, 'attempt-1.events.jsonl');
    const price = priceOf('gpt-6.1-sol');
    assert.ok(price);
    // The first run, as Foreman wrote its events: 2,200 in (400 of them cached), 80 out.
    const first = codexParser(false, { eventsFile, price });
    const firstEvents = [started, completed(2200, 400, 80)].flatMap((text) => first.line(text));
    writeFileSync(eventsFile, firstEvents.map((event) => JSON.stringify({ at: 1, ...event })).join('\n') + '\n');
    assert.deepEqual(firstEvents[1], {
      type: 'usage',
      usage: {
        inputTokens: 1800,
        cacheReadTokens: 400,
        cacheWriteTokens: 0,
        outputTokens: 80,
        costUsd: (1800 * 2 + 400 * 0.1 + 80 * 10) / 1e6,
      },
    });
    // `exec resume`: Codex reports the thread's total, 6,300 in (1,000 cached) and 180 out.
    const resumed = codexParser(true, { eventsFile, price });
    const events = [started, completed(6300, 1000, 180)].flatMap((text) => resumed.line(text));
    assert.deepEqual(events, [
      { type: 'session', sessionId: thread, resumed: true },
      {
        type: 'usage',
        usage: {
          inputTokens: 3500,
          cacheReadTokens: 600,
          cacheWriteTokens: 0,
          outputTokens: 100,
          costUsd: (3500 * 2 + 600 * 0.1 + 100 * 10) / 1e6,
        },
      },
    ]);
  });

  it('starts from nothing when the resumed thread is another one (its session was gone)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'codex-usage-'));
    const eventsFile = join(folder, 'attempt-1.events.jsonl');
    writeFileSync(eventsFile, JSON.stringify({ at: 1, type: 'session', sessionId: 'other', resumed: false }) + '\n');
    const parser = codexParser(true, { eventsFile });
    const usage = [started, completed(500, 0, 7)].flatMap((text) => parser.line(text)).find((event) => event.type === 'usage');
    assert.deepEqual(usage, {
      type: 'usage',
      usage: { inputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 7, costUsd: 0 },
    });
  });

  it('takes the model from the profile args, else config.toml, else the default; a profile price wins', () => {
    const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
    writeFileSync(join(home, 'config.toml'), 'model = "gpt-6-luna"\n[profiles.fast]\nmodel = "gpt-6-astra"\n');
    assert.equal(codexModel(['-m', 'gpt-6-sol'], {}), 'gpt-6-sol');
    assert.equal(codexModel(['--model=gpt-6-astra'], {}), 'gpt-6-astra');
    assert.equal(codexModel(['-c', 'model="gpt-5.5"'], { CODEX_HOME: home }), 'gpt-5.5');
    assert.equal(codexModel([], { CODEX_HOME: home }), 'gpt-6-luna');
    assert.equal(codexModel([], {}), 'gpt-6.1-sol');
    assert.deepEqual(priceOf('openai/gpt-6-sol-2026-09-22'), priceOf('gpt-6-sol'));
    assert.deepEqual(priceOf('gpt-6-sol', { 'gpt-6-sol': { input: 1, cachedInput: 0, output: 1 } }), {
      input: 1,
      cachedInput: 0,
      output: 1,
    });
    assert.equal(priceOf('my-local-model'), undefined);
  });

  it('a profile with a bad price is refused, naming the setting', () => {
    const bad = resolveProfile('codex', { codex: { prices: { 'gpt-6-sol': { input: -1, output: 10 } } } });
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.message, /foreman\.agents\.codex\.prices\.gpt-6-sol\.input: a price is ≥ 0/);
    assert.match(bad.ok ? '' : bad.message, /foreman\.agents\.codex\.prices\.gpt-6-sol\.cachedInput/);
    const good = resolveProfile('codex', { codex: { prices: { 'gpt-6-sol': { input: 1, cachedInput: 0.1, output: 5 } } } });
    assert.equal(good.ok, true);
    assert.equal(resolveProfile('claude', { claude: { prices: {} } }).ok, false, 'prices are for codex only');
  });
});

describe('Codex lines', () => {
  it('reconnecting lines are retries with their count; the error that ends the run stays an error', () => {
    const parser = codexParser(false);
    const events = [
      '{"type":"error","message":"Reconnecting... 2/5 (We’re currently experiencing high demand, which may cause temporary errors.)"}',
      '{"type":"error","message":"Reconnecting... 3/5 (unexpected status 500 Internal Server Error: scripted failure 500)"}',
      '{"type":"error","message":"Reconnecting… waiting for network"}',
      '{"type":"error","message":"We’re currently experiencing high demand, which may cause temporary errors."}',
      '{"type":"turn.failed","error":{"message":"We’re currently experiencing high demand, which may cause temporary errors."}}',
    ].flatMap((text) => parser.line(text));
    assert.deepEqual(events, [
      { type: 'retry', message: 'We’re currently experiencing high demand, which may cause temporary errors.', attempt: 2, maxAttempts: 5 },
      {
        type: 'retry',
        message: 'unexpected status 500 Internal Server Error: scripted failure 500',
        attempt: 3,
        maxAttempts: 5,
        status: 500,
      },
      { type: 'retry', message: 'waiting for network' },
      { type: 'error', message: 'We’re currently experiencing high demand, which may cause temporary errors.' },
      { type: 'error', message: 'We’re currently experiencing high demand, which may cause temporary errors.' },
    ]);
  });

  it('activity reads the command inside its shell wrapper; a sandbox denial and a declined command are errors', () => {
    const parser = codexParser(false);
    const command = `/bin/bash -c 'echo x > /etc/forbidden.txt; curl -sS http://example.com'`;
    const events = [
      `{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":${JSON.stringify(command)},"aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
      `{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":${JSON.stringify(command)},"aggregated_output":"/bin/bash: line 1: /etc/forbidden.txt: Read-only file system\\ncurl: (6) Could not resolve host: example.com\\n","exit_code":6,"status":"failed"}}`,
      `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'rm -rf /'","aggregated_output":"","exit_code":null,"status":"declined"}}`,
    ].flatMap((text) => parser.line(text));
    assert.deepEqual(events[0], { type: 'tool', name: 'Bash', detail: 'echo x > /etc/forbidden.txt; curl -sS http://example.com' });
    assert.deepEqual(
      events.filter((event) => event.type === 'error'),
      [
        {
          type: 'error',
          message:
            'the sandbox blocked: echo x > /etc/forbidden.txt; curl -sS http://example.com (/bin/bash: line 1: /etc/forbidden.txt: Read-only file system)',
        },
        { type: 'error', message: 'codex declined to run: rm -rf /' },
      ],
    );
  });

  it('unwraps bash/sh -c and -lc with shell quoting, and leaves anything else alone', () => {
    const cases: Array<[string, string]> = [
      [`/bin/bash -lc 'npm test'`, 'npm test'],
      [`/bin/bash -c 'echo two > b.txt'`, 'echo two > b.txt'],
      [`bash -lc "echo \\"hi\\" \\$HOME"`, 'echo "hi" $HOME'],
      [`sh -c 'it'\\''s' arg0`, "it's"],
      [`/usr/bin/zsh -ilc 'git status && git diff'`, 'git status && git diff'],
      ['npm test', 'npm test'],
      [`/bin/bash script.sh`, '/bin/bash script.sh'],
      [`python -c 'print(1)'`, `python -c 'print(1)'`],
      [`/bin/bash -c 'unterminated`, `/bin/bash -c 'unterminated`],
      [`bash -c "$SCRIPT"`, `bash -c "$SCRIPT"`],
    ];
    for (const [wrapped, inner] of cases) assert.equal(unwrapShellCommand(wrapped), inner, wrapped);
  });
});

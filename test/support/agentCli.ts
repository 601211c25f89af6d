/**
 * Environments that point the real Claude Code and Codex CLIs (devDependencies) at a scripted model
 * on 127.0.0.1, each in a HOME of its own so no test sees another's sessions, settings or logins,
 * and none sees the machine's.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repositoryRoot = resolve(__dirname, '..', '..');

/** `node_modules/.bin/claude` (@anthropic-ai/claude-code). */
export const claudeBinary = join(repositoryRoot, 'node_modules', '.bin', 'claude');
/** `node_modules/.bin/codex` (@openai/codex). */
export const codexBinary = join(repositoryRoot, 'node_modules', '.bin', 'codex');

/** Any value: the scripted model checks no key, but both CLIs refuse to start without one. */
export const fakeApiKey = 'sk-scripted-test-key';

/** A fresh, empty HOME (realpath'd: Claude keys its session folders by the real cwd). */
export function makeHome(prefix = 'foreman-agent-home-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * What every agent process gets: the given HOME, a PATH that still finds node, git and sh, a git
 * identity for commits, and nothing else of this process's environment.
 */
function baseEnvironment(home: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    HOME: home,
    PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TMPDIR: process.env['TMPDIR'] ?? tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test Agent',
    GIT_AUTHOR_EMAIL: 'agent@example.com',
    GIT_COMMITTER_NAME: 'Test Agent',
    GIT_COMMITTER_EMAIL: 'agent@example.com',
    ...extra,
  };
}

/** Claude Code against `modelUrl` (`http://127.0.0.1:<port>`), with telemetry and update checks off. */
export function claudeEnvironment(modelUrl: string, home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return baseEnvironment(home, {
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: fakeApiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...extra,
  });
}

/** Optional knobs of the Codex provider table. */
export interface CodexProviderOptions {
  /** Retries of a failed request before giving up (Codex's default is several, with backoff). */
  readonly requestMaxRetries?: number;
  /** Reconnects of a dropped stream before giving up. */
  readonly streamMaxRetries?: number;
}

/**
 * Codex against `modelUrl`: 0.169 ignores OPENAI_BASE_URL, so the provider is declared in
 * `$HOME/.codex/config.toml` and selected as the default.
 */
export function codexEnvironment(
  modelUrl: string,
  home: string,
  options: CodexProviderOptions = {},
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const lines = [
    'model_provider = "local"',
    '',
    '[model_providers.local]',
    'name = "local"',
    `base_url = "${modelUrl}/v1"`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
  ];
  if (options.requestMaxRetries !== undefined) lines.push(`request_max_retries = ${options.requestMaxRetries}`);
  if (options.streamMaxRetries !== undefined) lines.push(`stream_max_retries = ${options.streamMaxRetries}`);
  writeFileSync(join(codexHome, 'config.toml'), `${lines.join('\n')}\n`);
  // Codex lays its sandbox helper (codex-linux-sandbox, run by bubblewrap) into CODEX_HOME, but
  // refuses to under the temp folder, where a test's HOME is: its sandboxed commands then fail
  // ("bwrap: execvp codex-linux-sandbox"). A temp folder of its own puts CODEX_HOME outside it.
  const tmp = join(home, 'tmp');
  mkdirSync(tmp, { recursive: true });
  return baseEnvironment(home, { OPENAI_API_KEY: fakeApiKey, CODEX_HOME: codexHome, TMPDIR: tmp, ...extra });
}

/**
 * Claude's folder for a project's sessions: `~/.claude/projects/<cwd with every non-alphanumeric
 * as '-'>` (2.1.197; `$CLAUDE_CONFIG_DIR` replaces `~/.claude`). A slug over 200 characters is cut
 * to 200 and suffixed with a hash this helper does not reproduce: keep test paths short.
 */
export function claudeProjectDir(home: string, cwd: string): string {
  return join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
}

/**
 * Real processes for the agent tests: temp folders, tiny node scripts as agents, and a fake
 * `foreman` executable. Importing this isolates git from the machine's configuration (no system
 * config, HOME is an empty folder) so the demo agent's commits are reproducible.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { isolateGitFromMachine, makeGitRepo } from '../../support/gitRepo';
import { type AgentProfile, agentProfileSchema, type AgentProfileInput } from '../../../src/infra/agents/profiles';

const sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-agents-test-')));
isolateGitFromMachine(sandbox);

after(() => rmSync(sandbox, { recursive: true, force: true }));

let counter = 0;

/** A fresh empty folder inside this file's sandbox. */
export function tempDir(name: string): string {
  counter += 1;
  const folder = join(sandbox, `${name}-${counter}`);
  mkdirSync(folder, { recursive: true });
  return folder;
}

export interface FakeCli {
  /** Goes first on the agent's PATH. */
  readonly binDir: string;
  /** Every call's argv (after `foreman`) with the FOREMAN_WORKER_ID it saw, in order. */
  calls(): { argv: string[]; workerId: string | undefined }[];
}

/**
 * A stand-in for the `foreman` CLI: a real executable (a node script) that only records how it
 * was called. The agents under test must reach *a* `foreman` on their PATH; what the real CLI does
 * with a heartbeat is tested with the CLI, and this keeps these tests free of an engine and socket.
 */
export function fakeForemanCli(): FakeCli {
  const binDir = tempDir('bin');
  const callsFile = join(binDir, 'calls.jsonl');
  const script = [
    `#!${process.execPath}`,
    `require('node:fs').appendFileSync(${JSON.stringify(callsFile)}, JSON.stringify({ argv: process.argv.slice(2), workerId: process.env.FOREMAN_WORKER_ID }) + '\\n');`,
    '',
  ].join('\n');
  writeFileSync(join(binDir, 'foreman'), script);
  chmodSync(join(binDir, 'foreman'), 0o755);
  return {
    binDir,
    calls: () =>
      existsSync(callsFile)
        ? readFileSync(callsFile, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as { argv: string[]; workerId: string | undefined })
        : [],
  };
}

/** A node script as an agent: `node <script> …args`, validated like a user's profile. */
export function scriptProfile(source: string, args: string[] = [], fields: Partial<AgentProfileInput> = {}): AgentProfile {
  const script = join(tempDir('script'), 'agent.js');
  writeFileSync(script, source);
  return agentProfileSchema.parse({ command: process.execPath, args: [script, ...args], ...fields });
}

export function readText(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** git with argv, in `cwd`, as the test user; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test User', '-c', 'user.email=test@example.com', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** A repository on `main` with one commit holding `f.txt` = "base". */
export function makeRepo(): string {
  return makeGitRepo(join(tempDir('case'), 'repo'), { files: { 'f.txt': 'base\n' }, configureIdentity: false });
}

/**
 * A CLI call waiting on an owner steps back for it (src/cli/priority.ts): while a real `foreman serve`
 * is stopped (SIGSTOP) with the call's request in its socket, the call's process runs at nice 10,
 * read from /proc; one started at nice 15 stays there; and once the owner runs again, the call
 * finishes as usual. Both the thin entry (dist/cli.js) and the full CLI's route (dist/cli-local.js).
 */
import assert from 'node:assert/strict';
import { type StdioOptions, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientNice } from '../../../src/cli/priority';
import { pollUntil } from '../../support/pollUntil';
import { type Server, baseEnv, cliPath, servedRepo, tempFolder } from './harness';

const fullCliPath = join(cliPath, '..', 'cli-local.js');

/** A process's nice value, field 19 of /proc/<pid>/stat (after the command name in parentheses). */
function niceOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
    return fields ? Number(fields[16]) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the process holds a socket: the call connects to the owner only after it stepped back. */
function holdsSocket(pid: number): true | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) || undefined;
  } catch {
    return undefined;
  }
}


describe('foreman CLI: a call waiting on an owner yields the CPU to it', { timeout: 120_000 }, () => {
  let repo = '';
  let server: Server | undefined;

  before(async () => {
    ({ repo, server } = await servedRepo(['w1']));
  });
  after(async () => {
    if (server) process.kill(server.pid, 'SIGCONT');
    assert.equal(await server?.stop(), 0);
  });

  /** Runs `heartbeat w1` with the owner stopped; returns the call's nice value while it waited, and its exit code. */
  async function niceWhileWaiting(entry: string, niceFirst?: number): Promise<{ nice: number; code: number | null; stdout: string }> {
    const owner = server!;
    process.kill(owner.pid, 'SIGSTOP');
    const argv = [entry, 'heartbeat', 'w1'];
    // Output to a file: pipes to a child are socket pairs, and the test tells the call's connection by its socket.
    const out = join(tempFolder(), 'out.txt');
    const outFd = openSync(out, 'w');
    const stdio: StdioOptions = ['ignore', outFd, 'ignore'];
    const child =
      niceFirst === undefined
        ? spawn(process.execPath, argv, { cwd: repo, env: baseEnv, stdio })
        : spawn('nice', ['-n', String(niceFirst), process.execPath, ...argv], { cwd: repo, env: baseEnv, stdio });
    closeSync(outFd);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // Once it has connected (the stopped owner's socket takes the connection into its backlog).
      await pollUntil(() => holdsSocket(child.pid!), { what: 'the call to connect to the owner', timeoutMs: 15_000, intervalMs: 20 });
      const nice = niceOf(child.pid!);
      assert.ok(nice !== undefined, 'the call is still running');
      process.kill(owner.pid, 'SIGCONT');
      return { nice, code: await exited, stdout: readFileSync(out, 'utf8') };
    } finally {
      process.kill(owner.pid, 'SIGCONT');
    }
  }

  it('the thin entry and the full CLI wait at nice 10, and finish once the owner runs', async () => {
    for (const entry of [cliPath, fullCliPath]) {
      const waited = await niceWhileWaiting(entry);
      assert.equal(waited.nice, clientNice, entry);
      assert.equal(waited.code, 0, entry);
      assert.equal(waited.stdout, 'heartbeat from w1 (IDLE, attempt 0)\n');
    }
  });

  it('a call started at a lower priority keeps it', async () => {
    const waited = await niceWhileWaiting(cliPath, 15);
    assert.equal(waited.nice, 15);
    assert.equal(waited.code, 0);
  });
});

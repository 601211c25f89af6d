/**
 * The endpoint is bound to the `.foreman/` folder it serves (issue 28, item 4), against a real
 * EndpointServer on a real socket with a stand-in executor: the announcement names the folder; a
 * client in another folder holding a copy of the announcement and token ignores it and sends
 * nothing; a request that says it came from another folder is refused unrun; a folder reached by
 * another path (a symbolic link) is the same folder; and a copy's own owner leaves the original's
 * private socket folder alone.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ok } from '../../../src/core/result';
import {
  EndpointServer,
  endpointFileName,
  readAnnouncement,
  sendRequest,
  sendToEndpoint,
  tokenFileName,
} from '../../../src/infra/endpoint';
import { folderIdentityOf } from '../../../src/infra/workspace/folderIdentity';

const sandbox = mkdtempSync(join(tmpdir(), 'foreman-binding-'));
after(() => rmSync(sandbox, { recursive: true, force: true }));
let counter = 0;

function folder(name = `dir-${++counter}`): string {
  const dir = join(sandbox, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** An owner whose executor counts what it runs. */
async function owner(dir: string): Promise<{ endpoint: EndpointServer; ran: () => number }> {
  let runs = 0;
  const endpoint = await EndpointServer.start(dir, () => ok({ run: ++runs }));
  return { endpoint, ran: () => runs };
}

/** What a copy of the folder (cp -a) carries of the owner: its announcement and its token. */
function copyAnnouncement(from: string, to: string): void {
  for (const name of [endpointFileName, tokenFileName]) copyFileSync(join(from, name), join(to, name));
}

const status = { command: 'status', args: {}, actor: 'cli' };
const options = { timeoutMs: 5_000 };

test('the announcement names the folder served; a client in a copy ignores it and sends nothing', async () => {
  const original = folder();
  const { endpoint, ran } = await owner(original);
  try {
    const announced = readAnnouncement(original)!;
    assert.deepEqual(announced.info.folder, folderIdentityOf(original));

    const served = await sendRequest(original, status, options);
    assert.equal(served.kind, 'response');
    assert.equal(ran(), 1);

    const copy = folder();
    copyAnnouncement(original, copy);
    const fromCopy = await sendRequest(copy, status, options);
    assert.equal(fromCopy.kind, 'unreachable');
    assert.match(
      fromCopy.kind === 'unreachable' ? fromCopy.reason : '',
      /announces the owner of another folder .*copied along with the folder/,
    );
    assert.equal(ran(), 1, 'nothing ran for the copy');

    // Another path to the same folder is the same folder.
    const link = join(sandbox, `link-${++counter}`);
    symlinkSync(original, link);
    assert.equal((await sendRequest(link, status, options)).kind, 'response');
    assert.equal(ran(), 2);
  } finally {
    await endpoint.close();
  }
});

test('the owner refuses, unrun, a request that says it came from another folder', async () => {
  const original = folder();
  const { endpoint, ran } = await owner(original);
  try {
    const { token } = readAnnouncement(original)!;
    const other = folderIdentityOf(folder())!;
    const refused = await sendToEndpoint({ socketPath: endpoint.socketPath, token, folder: other }, status, options);
    assert.equal(refused.kind, 'response');
    if (refused.kind !== 'response') return;
    assert.equal(refused.response.exitCode, 3);
    assert.equal(refused.response.result.ok, false);
    if (refused.response.result.ok) return;
    assert.equal(refused.response.result.code, 'otherWorkspace');
    assert.match(refused.response.result.message, new RegExp(`serves ${original}.*is a copy.*Nothing was run`));
    assert.equal(ran(), 0);

    // Its own folder, and no folder at all (an agent given FOREMAN_ENDPOINT), are served.
    const own = await sendToEndpoint({ socketPath: endpoint.socketPath, token, folder: folderIdentityOf(original)! }, status, options);
    const agent = await sendToEndpoint({ socketPath: endpoint.socketPath, token }, status, options);
    assert.equal(own.kind === 'response' && own.response.exitCode, 0);
    assert.equal(agent.kind === 'response' && agent.response.exitCode, 0);
    assert.equal(ran(), 2);
  } finally {
    await endpoint.close();
  }
});

test("a copy's own owner leaves the original's private socket folder (a long path) alone", async () => {
  const long = 'x'.repeat(110);
  const original = folder(`${long}-original/.foreman`);
  const first = await owner(original);
  const copy = folder(`${long}-copy/.foreman`);
  try {
    const privateDir = readAnnouncement(original)!.info.socketDir;
    assert.ok(privateDir && existsSync(privateDir), 'a long path gets a private socket folder');
    copyAnnouncement(original, copy);
    const second = await owner(copy);
    try {
      assert.ok(existsSync(first.endpoint.socketPath), "the original's socket is still there");
      assert.equal((await sendRequest(original, status, options)).kind, 'response');
      assert.equal((await sendRequest(copy, status, options)).kind, 'response');
      assert.deepEqual([first.ran(), second.ran()], [1, 1], 'each folder reached its own owner');
    } finally {
      await second.endpoint.close();
    }
  } finally {
    await first.endpoint.close();
  }
});

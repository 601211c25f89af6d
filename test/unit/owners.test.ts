/**
 * The small parts of several owners on one store (issue 14): host names, the NOTIFY payload both
 * ways, where views gather another owner's changes, and the HOST column of `worker list`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printResult } from '../../src/cli/format';
import type { WorkerStatus } from '../../src/engine/statusView';
import { hostSchema, thisHost } from '../../src/core/ids';
import { parseCommand } from '../../src/core/requests';
import { addPending } from '../../src/extension/statusModel';
import { decodeNotice } from '../../src/infra/pg/listener';
import { encodeNotice } from '../../src/infra/pg/pgStore';
import { makeStatus } from './dashboard/fixtures';

describe('host names', () => {
  it('takes FOREMAN_HOST as given, else makes the system name a valid one', () => {
    assert.equal(thisHost({ FOREMAN_HOST: 'build-1' }, 'ignored'), 'build-1');
    assert.equal(thisHost({}, 'MacBook-Pro.local'), 'macbook-pro.local');
    assert.equal(thisHost({}, 'Ada_Lovelace PC'), 'ada-lovelace-pc');
    assert.equal(thisHost({}, '__'), 'localhost');
    for (const name of ['macbook-pro.local', 'ada-lovelace-pc', 'build-1']) assert.equal(hostSchema.safeParse(name).success, true, name);
  });

  it('refuses a --host that is not a name like an id', () => {
    assert.equal(parseCommand('worker.add', { id: 'ada', host: 'build-1.lan' }).ok, true);
    for (const host of ['Build-1', '-x', 'a b', 'x'.repeat(64), '../etc']) {
      assert.equal(parseCommand('worker.add', { id: 'ada', host }).ok, false, host);
    }
  });
});

describe('the NOTIFY payload', () => {
  it('carries the owner and the rows it changed, both ways', () => {
    const payload = encodeNotice('owner-a', { workers: ['ada'], tasks: ['t1', 't2'] });
    assert.deepEqual(decodeNotice(payload), { owner: 'owner-a', changed: { workers: ['ada'], tasks: ['t1', 't2'] } });
  });

  it('leaves the rows out when they are unknown or too many for PostgreSQL (under 8000 bytes)', () => {
    assert.deepEqual(decodeNotice(encodeNotice('owner-a', undefined)), { owner: 'owner-a' });
    const many = Array.from({ length: 2_000 }, (_, i) => `task-${i}`);
    const payload = encodeNotice('owner-a', { workers: [], tasks: many });
    assert.ok(payload.length < 8000);
    assert.deepEqual(decodeNotice(payload), { owner: 'owner-a' });
  });

  it('reads a payload it cannot parse as a change of unknown rows from nobody known', () => {
    assert.deepEqual(decodeNotice('not json'), { owner: '' });
    assert.deepEqual(decodeNotice('{"w":[1]}'), { owner: '' });
    assert.deepEqual(decodeNotice(undefined), { owner: '' });
  });
});

describe("views and another owner's changes", () => {
  it('gather the rows a change named, and read everything after a change that named none', () => {
    const pending = addPending({ workers: new Set(['ada']), tasks: new Set() }, { workers: ['bob'], tasks: ['t1'] });
    assert.deepEqual(pending, { workers: new Set(['ada', 'bob']), tasks: new Set(['t1']) });
    assert.equal(addPending(pending, undefined), 'all');
    assert.equal(addPending('all', { workers: ['x'], tasks: [] }), 'all');
  });
});

function workerList(workers: WorkerStatus[]): string[] {
  const lines: string[] = [];
  printResult(
    { out: (line) => lines.push(...line.split('\n')), err: (line) => lines.push(`ERR ${line}`) },
    'worker.list',
    { ok: true, value: workers },
    false,
  );
  return lines;
}

describe('worker list', () => {
  it('has a HOST column only when a worker is on a host', () => {
    const [first, second] = makeStatus({ workers: 2, tasks: 2 }).workers;
    assert.ok(first && second);
    const alone = workerList([first, second]);
    assert.doesNotMatch(alone[0] ?? '', /HOST/);
    const spread = workerList([{ ...first, host: 'build-1' }, second]);
    assert.match(spread[0] ?? '', /^WORKER\s+HOST\s+STATE/);
    assert.match(spread[1] ?? '', /^worker-000\s+build-1\s+WORKING/);
    assert.match(spread[2] ?? '', /^worker-001\s+-\s+WORKING/);
  });
});

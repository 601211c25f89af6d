import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LineBuffer } from '../../../src/infra/endpoint/lineBuffer';
import { socketPathInside } from '../../../src/infra/endpoint';
import { createSocketLocation, removeSocketLocation } from '../../../src/infra/endpoint/socketLocation';
import { FileBlobStore, JsonlExportSink, writeFileAtomic } from '../../../src/infra/fs';

const root = mkdtempSync(join(tmpdir(), 'foreman-unit-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('endpoint parts', () => {
  it('puts the socket in .foreman when the path is short, else in a fresh private folder in the temp folder', () => {
    assert.equal(socketPathInside('/repo/.foreman'), '/repo/.foreman/foreman.sock');
    assert.deepEqual(createSocketLocation('/repo/.foreman'), { socketPath: '/repo/.foreman/foreman.sock' });
    const deep = `/${'deep/'.repeat(30)}.foreman`;
    assert.equal(socketPathInside(deep), undefined);
    const first = createSocketLocation(deep);
    const second = createSocketLocation(deep);
    try {
      assert.ok(first.privateDir && second.privateDir);
      assert.notEqual(first.privateDir, second.privateDir, 'the folder name must not be predictable');
      assert.equal(dirname(first.socketPath), first.privateDir);
      assert.equal(statSync(first.privateDir).mode & 0o777, 0o700);
      assert.equal(statSync(first.privateDir).uid, process.getuid!());
    } finally {
      removeSocketLocation(first);
      removeSocketLocation(second);
    }
    assert.equal(existsSync(first.privateDir), false);
  });

  it('splits lines across chunks and stops at the size limit', () => {
    const lines = new LineBuffer(10);
    assert.deepEqual(lines.push(Buffer.from('ab')), { lines: [], overflow: false });
    assert.deepEqual(lines.push(Buffer.from('c\nde\nf')), { lines: ['abc', 'de'], overflow: false });
    assert.deepEqual(lines.push(Buffer.from('0123456789')), { lines: [], overflow: true });
  });
});

describe('file-backed ports', () => {
  it('writes files atomically with the mode asked for', () => {
    const file = join(root, 'secret');
    writeFileAtomic(file, 'one');
    writeFileAtomic(file, 'two', { mode: 0o600 });
    assert.equal(readFileSync(file, 'utf8'), 'two');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(root).filter((name) => name.includes('.tmp')),
      [],
    );
  });

  it('stores blobs by content and refuses refs that are not blob names', () => {
    const blobs = new FileBlobStore(join(root, 'blobs'));
    const ref = blobs.put(Buffer.from('payload'));
    assert.match(ref, /^sha256-[0-9a-f]{64}$/);
    assert.equal(blobs.put(Buffer.from('payload')), ref);
    assert.equal(Buffer.from(blobs.get(ref)!).toString(), 'payload');
    assert.equal(blobs.get('../secret'), undefined);
    assert.equal(blobs.get(`sha256-${'0'.repeat(64)}`), undefined);
    writeFileSync(join(root, 'blobs', ref), 'tampered');
    assert.throws(() => blobs.get(ref), /damaged/);
  });

  it('appends JSONL, reads the last complete seq, and cuts a torn tail before appending', () => {
    const dir = mkdtempSync(join(root, 'exports-'));
    const sink = new JsonlExportSink(dir);
    assert.equal(sink.lastExported('transitions')?.seq, undefined);
    sink.append('transitions', [JSON.stringify({ seq: 1 }), JSON.stringify({ seq: 2, text: 'x'.repeat(100_000) })], 2);
    assert.equal(sink.lastExported('transitions')?.seq, 2);
    appendFileSync(join(dir, 'transitions.jsonl'), '{"seq":3,"tor');
    assert.equal(sink.lastExported('transitions')?.seq, 2);
    sink.append('transitions', [JSON.stringify({ seq: 3 })], 3);
    const lines = readFileSync(join(dir, 'transitions.jsonl'), 'utf8').trimEnd().split('\n');
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { seq: number }).seq),
      [1, 2, 3],
    );
    sink.append('messages', [JSON.stringify({ seq: 7 })], 7);
    assert.equal(sink.lastExported('messages')?.seq, 7);
    assert.ok(readdirSync(dir).includes('bus.jsonl'));
  });
});

/**
 * `foreman.ack` (ackFile.ts) on real files: a mark deleted or replaced while the store is open is
 * noticed at the next raise and written again at the seq just acknowledged; something at its path
 * that is not a file is refused as damage, naming it and what to do, and a directory that blocks
 * the rewrite is a failure reported, not thrown.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AckFile, ackName, readAckFile } from '../../../src/infra/db/ackFile';
import { StoreError } from '../../../src/infra/db/storeError';

const sandbox = mkdtempSync(join(tmpdir(), 'foreman-ack-'));
after(() => rmSync(sandbox, { recursive: true, force: true }));
let counter = 0;

function folder(): string {
  const dir = join(sandbox, `store-${++counter}`);
  mkdirSync(dir);
  return dir;
}

/** Raises the mark and says what it reported: notices and failures. */
function raise(ack: AckFile, seq: number, withNotice = true): { notices: string[]; failures: unknown[] } {
  const notices: string[] = [];
  const failures: unknown[] = [];
  ack.raise(seq, (error) => failures.push(error), withNotice ? (line) => notices.push(line) : undefined);
  return { notices, failures };
}

const seqIn = (dir: string): unknown => readAckFile(dir);

describe('foreman.ack', () => {
  it('raises the mark in place while the file is left alone', () => {
    const dir = folder();
    const ack = AckFile.open(dir, 5, readAckFile(dir));
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 5, canonical: true });
    assert.deepEqual(raise(ack, 6), { notices: [], failures: [] });
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 6, canonical: true });
    ack.close();
  });

  it('writes a deleted mark again at the next raise, says so, and goes on raising the new file', () => {
    const dir = folder();
    const ack = AckFile.open(dir, 5, readAckFile(dir));
    rmSync(join(dir, ackName));
    const { notices, failures } = raise(ack, 7);
    assert.deepEqual(failures, []);
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, new RegExp(`${ackName} was deleted while the store was open; Foreman wrote it again at seq 7`));
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 7, canonical: true });
    assert.deepEqual(raise(ack, 8), { notices: [], failures: [] });
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 8, canonical: true });
    assert.deepEqual(readdirSync(dir), [ackName], 'no temp file is left behind');
    ack.close();
  });

  it('puts its mark back over a file that replaced it (an editor saving a copy)', () => {
    const dir = folder();
    const ack = AckFile.open(dir, 5, readAckFile(dir));
    writeFileSync(join(dir, 'edited'), '3\n');
    renameSync(join(dir, 'edited'), join(dir, ackName));
    const { notices } = raise(ack, 9);
    assert.match(notices[0] ?? '', /was replaced by another file while the store was open; Foreman wrote it again at seq 9/);
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 9, canonical: true });
    ack.close();
  });

  it('goes on raising the mark of a folder that was moved while open (mv of the repository)', () => {
    const dir = folder();
    const ack = AckFile.open(dir, 5, readAckFile(dir));
    const moved = `${dir}-moved`;
    renameSync(dir, moved);
    assert.deepEqual(raise(ack, 6), { notices: [], failures: [] });
    assert.deepEqual(seqIn(moved), { kind: 'seq', seq: 6, canonical: true });
    ack.close();
  });

  it('writes the mark again when the file itself was renamed away', () => {
    const dir = folder();
    const ack = AckFile.open(dir, 5, readAckFile(dir));
    renameSync(join(dir, ackName), join(dir, `${ackName}.bak`));
    assert.match(raise(ack, 6).notices[0] ?? '', /was deleted while the store was open; Foreman wrote it again at seq 6/);
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 6, canonical: true });
    ack.close();
  });

  it('says it through `failed` when the caller gives no `noticed`', () => {
    const dir = folder();
    const ack = AckFile.open(dir, 1, readAckFile(dir));
    rmSync(join(dir, ackName));
    const { failures } = raise(ack, 2, false);
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /was deleted while the store was open; Foreman wrote it again at seq 2/);
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 2, canonical: true });
    ack.close();
  });

  it('reports, without throwing, a directory that took its place, and recovers once it is gone', () => {
    const dir = folder();
    const ack = AckFile.open(dir, 1, readAckFile(dir));
    const file = join(dir, ackName);
    rmSync(file);
    mkdirSync(file);
    writeFileSync(join(file, 'something'), 'kept');
    const blocked = raise(ack, 2);
    assert.deepEqual(blocked.notices, []);
    assert.equal(blocked.failures.length, 1);
    assert.ok(existsSync(join(file, 'something')), 'what a person put there is kept');
    assert.deepEqual(readdirSync(dir), [ackName], 'no temp file is left behind');
    rmSync(join(file, 'something'));
    rmdirSync(file);
    assert.match(raise(ack, 3).notices[0] ?? '', /was deleted .* at seq 3/);
    assert.deepEqual(seqIn(dir), { kind: 'seq', seq: 3, canonical: true });
    ack.close();
  });

  it('refuses to read something that is not a file, naming it and what to do', () => {
    const dir = folder();
    const file = join(dir, ackName);
    mkdirSync(file);
    assert.throws(
      () => readAckFile(dir),
      (error: unknown) =>
        error instanceof StoreError &&
        error.code === 'damaged' &&
        error.message.startsWith(`${file} is a directory, but Foreman keeps its acknowledged mark there`) &&
        error.message.includes(`mv ${file} ${file}.aside`),
    );
    rmdirSync(file);
    execFileSync('mkfifo', [file]);
    // Reading a named pipe would block for ever; it is refused without being opened.
    assert.throws(() => readAckFile(dir), /is a named pipe, but Foreman keeps its acknowledged mark there/);
  });
});

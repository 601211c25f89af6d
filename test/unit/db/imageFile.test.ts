import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { readImageFile, writeImageFile } from '../../../src/infra/db/imageFile';
import { loadSqlJs } from '../../../src/infra/db/sqlJsModule';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-image-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The smallest thing that passes the header checks: a 100-byte header claiming one 512-byte page. */
function fakeImage(): Buffer {
  const image = Buffer.alloc(512, 7);
  image.write('SQLite format 3\0', 0, 'latin1');
  image.writeUInt16BE(512, 16);
  image.writeUInt32BE(1, 28);
  return image;
}

describe('image files', () => {
  it('round-trip with a verified checksum, returning the image without its trailer', () => {
    const file = path.join(dir, 'round-trip.db');
    writeImageFile(file, fakeImage());
    assert.equal(fs.statSync(file).size, 512 + 48);
    const read = readImageFile(file);
    assert.equal(read.kind, 'image');
    assert.ok(read.kind === 'image' && read.checksummed && read.bytes.equals(fakeImage()));
  });

  it('report a changed byte, a cut trailer and a short file', () => {
    const file = path.join(dir, 'damaged.db');
    writeImageFile(file, fakeImage());
    const bytes = fs.readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(300) ^ 1, 300);
    fs.writeFileSync(file, bytes);
    assert.deepEqual(readImageFile(file), {
      kind: 'damaged',
      reason: 'its checksum does not match (it was changed or damaged after Foreman wrote it)',
    });
    fs.writeFileSync(file, Buffer.concat([Buffer.alloc(100), bytes.subarray(bytes.length - 48)]));
    assert.match((readImageFile(file) as { reason: string }).reason, /does not match the 512 bytes its trailer records/);
    fs.writeFileSync(file, fakeImage().subarray(0, 300));
    assert.deepEqual(readImageFile(file), { kind: 'damaged', reason: 'it is truncated (300 of 512 bytes)' });
  });

  it('accept an image without a trailer, marked as unchecked', () => {
    const file = path.join(dir, 'plain.db');
    fs.writeFileSync(file, fakeImage());
    const read = readImageFile(file);
    assert.ok(read.kind === 'image' && !read.checksummed);
  });

  it('give sql.js room to grow the file in place: a growing database writes into the memory its image was read into', async () => {
    const SQL = await loadSqlJs();
    const seeded = new SQL.Database();
    seeded.run('CREATE TABLE t (b BLOB)');
    seeded.run('INSERT INTO t VALUES (zeroblob(100000))');
    const file = path.join(dir, 'grows.db');
    writeImageFile(file, seeded.export());
    seeded.close();
    const read = readImageFile(file);
    assert.ok(read.kind === 'image');
    const { loadable } = read;
    const allocation = (length: number): Uint8Array => new Uint8Array(loadable.buffer, loadable.byteOffset, length);
    assert.ok(loadable.buffer.byteLength >= loadable.length + 8 * 2 ** 20, 'at least 8 MiB of room');
    assert.deepEqual(loadable.slice(1, 4), new Uint8Array(read.bytes.subarray(1, 4)), 'any other slice is an ordinary copy');
    const db = new SQL.Database(loadable);
    try {
      for (let row = 0; row < 40; row++) db.run('INSERT INTO t VALUES (randomblob(100000))');
      const grown = db.export();
      assert.ok(grown.length > read.bytes.length + 3 * 2 ** 20, `the file grew by MiBs (${grown.length} bytes)`);
      // Had sql.js copied the file into a new array to grow it, this memory would still be zeros.
      const added = (bytes: Uint8Array): Buffer => Buffer.from(bytes.subarray(read.bytes.length, grown.length));
      assert.ok(added(allocation(grown.length)).equals(added(grown)));
      assert.equal(db.exec('SELECT count(*) FROM t')[0]?.values[0]?.[0], 41);
    } finally {
      db.close();
    }
  });
});

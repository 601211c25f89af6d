/**
 * A database image on disk: the bytes sql.js exported, followed by a 48-byte trailer
 * `[sha256 of the image: 32][image length: u64 LE][magic "FMIMAGE1": 8]`.
 *
 * Why a trailer: verifying a SHA-256 of a 15 MiB image takes ~9 ms and catches any change to any
 * byte, while `PRAGMA integrity_check` takes 150–250 ms at 100k tasks (more than the whole
 * open-time budget of 100 ms) and sees only structural damage. The trailer is part of the same file, so it is written, fsync'd
 * and renamed together with the image. SQLite itself ignores it: the header of an exported image
 * holds a valid page count, and SQLite reads no further than that.
 */
import { constants } from 'node:buffer';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const magic = Buffer.from('FMIMAGE1', 'latin1');
const trailerBytes = 48;
const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');

/** An image read from disk, or why it cannot be used. */
export type ImageRead =
  | {
      readonly kind: 'image';
      readonly bytes: Buffer;
      /** False: no trailer, so SQLite must check it. */
      readonly checksummed: boolean;
      /** What to hand `new SQL.Database()`: the image, with room for its file to grow (`roomToGrow`). */
      readonly loadable: Uint8Array;
    }
  | { readonly kind: 'damaged'; readonly reason: string };

/**
 * Room read images get for their database file to grow into: a quarter of the image, at least 8 MiB.
 * sql.js keeps the file in one array (emscripten's MEMFS) and grows it by copying it whole into a new
 * array 1.125× its size, whose pages are then touched for the first time. At 1M tasks (280 MiB) the
 * first write after an open that extended the file held the owner's thread ~240 ms
 * (bench/fileGrowth.bench.ts measures such a copy). Allocated zeroed and untouched until written,
 * the room costs address space, not memory.
 */
const roomShare = 0.25;
const minimumRoomBytes = 8 * 2 ** 20;

/** The file's bytes, read into the start of a zeroed allocation with room after them. */
function readWithRoom(file: string): { bytes: Buffer; whole: Buffer } {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    // Buffer.alloc never hands out a slice of Node's shared pool: the allocation is this image's alone.
    // No more than a Buffer can hold: an image near that size gets what room is left.
    const whole = Buffer.alloc(
      Math.min(size + Math.max(minimumRoomBytes, Math.ceil(size * roomShare)), Math.max(size, constants.MAX_LENGTH)),
    );
    let read = 0;
    while (read < size) {
      const count = fs.readSync(fd, whole, read, size - read, read);
      if (count === 0) break;
      read += count;
    }
    return { bytes: whole.subarray(0, read), whole };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * `image` for sql.js, which creates its file from it with `data.slice(0, data.length)` (MEMFS's
 * first write). That one slice returns the whole allocation instead of a copy: the image first,
 * zeroed room after it. MEMFS counts the file's length apart from its array's, so writes that extend
 * the file land in the room, and a copy comes only once the room is used up. Any other slice is an
 * ordinary one, so a sql.js that loads differently only loses the room.
 */
function roomToGrow(image: Buffer, whole: Buffer): Uint8Array {
  const view = new Uint8Array(whole.buffer, whole.byteOffset, image.length);
  Object.defineProperty(view, 'slice', {
    value: (start?: number, end?: number): Uint8Array =>
      start === 0 && end === image.length
        ? new Uint8Array(whole.buffer, whole.byteOffset, whole.length)
        : new Uint8Array(view.subarray(start, end)),
  });
  return view;
}

function sha256(bytes: Uint8Array): Buffer {
  return crypto.createHash('sha256').update(bytes).digest();
}

/** The 48 bytes that follow an image: its SHA-256, its length and the magic. */
export function imageTrailer(imageSha256: Buffer, imageLength: number): Buffer {
  const trailer = Buffer.alloc(trailerBytes);
  imageSha256.copy(trailer, 0);
  trailer.writeBigUInt64LE(BigInt(imageLength), 32);
  magic.copy(trailer, 40);
  return trailer;
}

/**
 * Writes the image and its trailer, and fsyncs; the caller renames the file into place.
 * `fileStep` hears each step before it happens (tests kill there).
 */
export function writeImageFile(file: string, image: Uint8Array, fileStep: (step: string) => void = () => undefined): void {
  const trailer = imageTrailer(sha256(image), image.length);
  const name = path.basename(file);
  fileStep(`write ${name}`);
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    // A temp file left by a crash keeps its old mode through 'w'; the image is private either way.
    fs.fchmodSync(fd, 0o600);
    for (const part of [image, trailer]) {
      let written = 0;
      while (written < part.length) written += fs.writeSync(fd, part, written, part.length - written);
    }
    fileStep(`fsync ${name}`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Cheap checks that need no SQLite: emptiness, the header, the size the header promises. */
function checkSqliteHeader(bytes: Buffer): string | undefined {
  if (bytes.length === 0) return 'it is empty (0 bytes)';
  if (bytes.length < 100 || !bytes.subarray(0, 16).equals(sqliteHeader)) return 'it is not a SQLite database';
  const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
  const expected = pageSize * bytes.readUInt32BE(28);
  if (bytes.length < expected) return `it is truncated (${bytes.length} of ${expected} bytes)`;
  return undefined;
}

/**
 * Reads an image. The returned bytes are a view of what was read, not a copy, and `loadable` hands
 * sql.js that same memory: sql.js loads a copied plain Uint8Array slowly (PERF-FACTS).
 */
export function readImageFile(file: string): ImageRead {
  const { bytes, whole } = readWithRoom(file);
  if (bytes.length >= trailerBytes && bytes.subarray(bytes.length - 8).equals(magic)) {
    const length = Number(bytes.readBigUInt64LE(bytes.length - 16));
    if (length !== bytes.length - trailerBytes) {
      return { kind: 'damaged', reason: `its size (${bytes.length} bytes) does not match the ${length} bytes its trailer records` };
    }
    const image = bytes.subarray(0, length);
    if (!sha256(image).equals(bytes.subarray(length, length + 32))) {
      return { kind: 'damaged', reason: 'its checksum does not match (it was changed or damaged after Foreman wrote it)' };
    }
    // The trailer becomes room: zeros, as a file's unwritten bytes read.
    bytes.fill(0, length);
    const header = checkSqliteHeader(image);
    return header
      ? { kind: 'damaged', reason: header }
      : { kind: 'image', bytes: image, checksummed: true, loadable: roomToGrow(image, whole) };
  }
  const header = checkSqliteHeader(bytes);
  return header ? { kind: 'damaged', reason: header } : { kind: 'image', bytes, checksummed: false, loadable: roomToGrow(bytes, whole) };
}

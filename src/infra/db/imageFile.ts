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
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const magic = Buffer.from('FMIMAGE1', 'latin1');
const trailerBytes = 48;
const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');

/** An image read from disk, or why it cannot be used. */
export type ImageRead =
  | { readonly kind: 'image'; readonly bytes: Buffer; /** False: no trailer, so SQLite must check it. */ readonly checksummed: boolean }
  | { readonly kind: 'damaged'; readonly reason: string };

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
 * Reads an image. The returned bytes are a Buffer (a view, not a copy): sql.js loads a Node Buffer
 * fast and a copied plain Uint8Array slowly (PERF-FACTS).
 */
export function readImageFile(file: string): ImageRead {
  const bytes = fs.readFileSync(file);
  if (bytes.length >= trailerBytes && bytes.subarray(bytes.length - 8).equals(magic)) {
    const length = Number(bytes.readBigUInt64LE(bytes.length - 16));
    if (length !== bytes.length - trailerBytes) {
      return { kind: 'damaged', reason: `its size (${bytes.length} bytes) does not match the ${length} bytes its trailer records` };
    }
    const image = bytes.subarray(0, length);
    if (!sha256(image).equals(bytes.subarray(length, length + 32))) {
      return { kind: 'damaged', reason: 'its checksum does not match (it was changed or damaged after Foreman wrote it)' };
    }
    const header = checkSqliteHeader(image);
    return header ? { kind: 'damaged', reason: header } : { kind: 'image', bytes: image, checksummed: true };
  }
  const header = checkSqliteHeader(bytes);
  return header ? { kind: 'damaged', reason: header } : { kind: 'image', bytes, checksummed: false };
}

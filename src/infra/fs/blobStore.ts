import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BlobStore } from '../../engine/ports';
import { writeFileAtomic } from './atomicFile';

const refPattern = /^sha256-[0-9a-f]{64}$/;

/**
 * Content-addressed payloads (ARCHITECTURE §7): `<dir>/sha256-<hex>`. The name is the content's
 * hash, so a put is idempotent and a blob never changes once written.
 */
export class FileBlobStore implements BlobStore {
  constructor(private readonly directory: string) {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  }

  put(bytes: Uint8Array): string {
    const ref = `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
    const file = path.join(this.directory, ref);
    // Written atomically, so an existing file is always complete: no need to write it again.
    if (!fs.existsSync(file)) writeFileAtomic(file, bytes, { mode: 0o600 });
    return ref;
  }

  get(ref: string): Uint8Array | undefined {
    // The ref comes from the database; checking its shape keeps it a plain file name, never a path.
    if (!refPattern.test(ref)) return undefined;
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(path.join(this.directory, ref));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const actual = `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
    if (actual !== ref) throw new Error(`The blob ${path.join(this.directory, ref)} is damaged: its content hashes to ${actual}.`);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

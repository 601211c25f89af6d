/**
 * Why the longest request through the owner is a file growth (issue 13): sql.js keeps the database
 * file in one typed array (emscripten's MEMFS) that grows by 12.5% with a whole copy into a new
 * array. The copy is cheap; touching the new array's pages for the first time is not on every
 * machine. This bench separates the two, in one run:
 *
 *   firstTouch    writing every byte of a fresh array (each page faulted in) against writing it
 *                 again (pages resident), per MiB;
 *   growthCopy    MEMFS's growth of a `--mib` file (new array of 1.125×, copy) against the same copy
 *                 into an array that is already resident;
 *   sqlJsWrites   a real sql.js database loaded from a `--mib` image, one 4 KiB row per write: the
 *                 writes that grew the file against the median write, with the image loaded at its
 *                 exact size (sql.js's own load) and as the store loads it, with room to grow
 *                 (src/infra/db/imageFile.ts).
 *
 * Usage: node --import tsx bench/fileGrowth.bench.ts [--mib 16] [--writes 3000] [--quick]. Prints one JSON object.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { Database } from 'sql.js';
import { readImageFile, writeImageFile } from '../src/infra/db/imageFile';
import { numberOption } from './support/options';
import { round, tails } from './support/stats';

const mib = 2 ** 20;
const now = (): number => performance.now();

function timed(fn: () => void): number {
  const started = now();
  fn();
  return now() - started;
}

/** ms per MiB to fill a fresh array, and to fill it again. */
function firstTouch(size: number): { freshMsPerMiB: number; residentMsPerMiB: number; ratio: number } {
  const fresh: number[] = [];
  const resident: number[] = [];
  for (let round_ = 0; round_ < 5; round_++) {
    const array = new Uint8Array(size);
    fresh.push(timed(() => array.fill(1)));
    resident.push(timed(() => array.fill(2)));
  }
  const freshMs = Math.min(...fresh) / (size / mib);
  const residentMs = Math.min(...resident) / (size / mib);
  return { freshMsPerMiB: round(freshMs, 3), residentMsPerMiB: round(residentMs, 3), ratio: round(freshMs / residentMs, 1) };
}

/** MEMFS's expandFileStorage at `size` against the same copy into a resident array. */
function growthCopy(size: number): { intoFreshMs: number; intoResidentMs: number; ratio: number } {
  const file = new Uint8Array(size).fill(7);
  const fresh: number[] = [];
  const resident: number[] = [];
  const reused = new Uint8Array(Math.floor(size * 1.125)).fill(0);
  for (let round_ = 0; round_ < 5; round_++) {
    fresh.push(
      timed(() => {
        const grown = new Uint8Array(Math.floor(size * 1.125));
        grown.set(file);
      }),
    );
    resident.push(timed(() => reused.set(file)));
  }
  const intoFresh = fresh.sort((a, b) => a - b)[2] ?? Number.NaN;
  const intoResident = resident.sort((a, b) => a - b)[2] ?? Number.NaN;
  return { intoFreshMs: round(intoFresh, 1), intoResidentMs: round(intoResident, 2), ratio: round(intoFresh / intoResident, 1) };
}

/** Timed one-row writes to `db`: the slow ones are growths of its file. */
function timedWrites(db: Database, writes: number, body: Uint8Array): Record<string, unknown> {
  db.run('PRAGMA journal_mode = OFF');
  const samples: number[] = [];
  for (let write = 0; write < writes; write++) {
    samples.push(timed(() => db.run('INSERT INTO rows (body) VALUES (?)', [body])));
  }
  db.close();
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  // A growth is a write far above the others: the first after the load, then every 12.5%.
  const slow = samples.map((ms, index) => ({ index, ms })).filter((sample) => sample.ms > Math.max(10, 20 * median));
  return {
    writes: tails(samples, 2),
    slowWrites: slow.map((sample) => ({ write: sample.index, ms: round(sample.ms, 1) })),
    slowestOverMedian: round((sorted[sorted.length - 1] ?? Number.NaN) / median, 0),
  };
}

/**
 * The same image loaded two ways, the same writes: at its exact size (sql.js's own load), and as the
 * store loads it, read into an allocation with room to grow (`readImageFile`'s `loadable`).
 */
async function sqlJsWrites(size: number, writes: number): Promise<Record<string, unknown>> {
  const SQL = await initSqlJs();
  const seed = new SQL.Database();
  seed.run('PRAGMA journal_mode = OFF');
  seed.run('CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  const body = new Uint8Array(4096).fill(3);
  seed.run('BEGIN');
  for (let id = 1; id <= Math.ceil(size / 4200); id++) seed.run('INSERT INTO rows (id, body) VALUES (?, ?)', [id, body]);
  seed.run('COMMIT');
  const image = seed.export();
  seed.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-file-growth-'));
  try {
    const file = path.join(dir, 'image.db');
    writeImageFile(file, image);
    const read = readImageFile(file);
    if (read.kind !== 'image') throw new Error(`the image written could not be read: ${read.reason}`);
    return {
      imageMiB: round(image.length / mib, 1),
      exactSize: timedWrites(new SQL.Database(image), writes, body),
      withRoom: timedWrites(new SQL.Database(read.loadable), writes, body),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const size = numberOption('mib', 16, 1) * mib;
  const writes = numberOption('writes', 3000, 100);
  const result = {
    bench: 'fileGrowth',
    mib: size / mib,
    firstTouch: firstTouch(size * 2),
    growthCopy: growthCopy(size),
    sqlJsWrites: await sqlJsWrites(size, writes),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

void main();

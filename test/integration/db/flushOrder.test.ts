/**
 * A checkpoint's image flushes never go ahead of the group's journal fsync (issue 34): on ext4 an
 * fsync waits for the dirty blocks queued before it, so an image chunk queued first would make the
 * answers of the requests in that group wait behind it. checkpointer.ts awaits the journal fsync
 * under way before each image write and fsync; this holds it with real files, the real thread pool
 * and a real background checkpoint.
 *
 * The calls are seen through a recording wrapper around the real `fs.write`, `fs.fsync` and
 * `fs.ftruncate` (the module object the store reads at each call, as groupCommit.test.ts does): each
 * call still goes to the real file system; the wrapper only notes when it was issued and when it
 * returned, and which file its descriptor names (/proc/self/fd, so Linux only). Not a mock.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { ok } from '../../../src/core/result';
import { SqlJsStore } from '../../../src/infra/db/index';
import { tempForemanDir } from './helpers';

type Callback = (...args: unknown[]) => void;
type PoolCall = (fd: number, ...rest: unknown[]) => void;

/** The module object itself (a namespace import is a frozen view of it); the store reads it at each call. */
const fs = createRequire(__filename)('node:fs') as Record<'write' | 'fsync' | 'ftruncate', PoolCall> & {
  readlinkSync: (path: string) => string;
};
const wrapped = ['write', 'fsync', 'ftruncate'] as const;
const real = Object.fromEntries(wrapped.map((name) => [name, fs[name]])) as Record<(typeof wrapped)[number], PoolCall>;

interface Event {
  readonly at: 'issued' | 'returned';
  readonly call: (typeof wrapped)[number];
  readonly file: 'journal' | 'image';
  readonly id: number;
}

/** Wraps the real calls on the thread pool; records those on a journal segment or the temp image. */
function record(dir: string): Event[] {
  const events: Event[] = [];
  let nextId = 0;
  for (const call of wrapped) {
    fs[call] = (fd, ...rest) => {
      const name = path.basename(fileOf(fd));
      const file = name.startsWith('foreman.journal') ? 'journal' : name.startsWith('foreman.db.tmp') ? 'image' : undefined;
      const callback = rest.pop() as Callback;
      if (!file || !fileOf(fd).startsWith(dir)) {
        real[call](fd, ...rest, callback);
        return;
      }
      const id = nextId++;
      events.push({ at: 'issued', call, file, id });
      real[call](fd, ...rest, (...args: unknown[]) => {
        events.push({ at: 'returned', call, file, id });
        callback(...args);
      });
    };
  }
  return events;
}

function fileOf(fd: number): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return '';
  }
}

describe('a background checkpoint beside the group journal fsync', () => {
  afterEach(() => {
    for (const call of wrapped) fs[call] = real[call];
  });

  it('issues no image write or fsync while a journal fsync is on the thread pool', async (t) => {
    if (process.platform !== 'linux') {
      t.skip('names descriptors through /proc/self/fd');
      return;
    }
    const dir = tempForemanDir();
    let installed = 0;
    const store = await SqlJsStore.open(dir, {
      checkpointBytes: 256 * 1024,
      // The image exported on this thread: the ordering under test is the writing, whatever made the image.
      replicaFromBytes: Number.POSITIVE_INFINITY,
      fileStep: (step) => {
        if (step === 'rename foreman.db.tmp to foreman.db') installed++;
      },
    });
    // An image of several 1 MiB chunks, so that a checkpoint spans many turns of group saves.
    const prompt = 'x'.repeat(2000);
    store.write((tx) => {
      for (let i = 0; i < 1500; i++) {
        tx.run(`INSERT INTO tasks (id, title, prompt, status, sort_order, created_at) VALUES (?, ?, ?, 'queued', ?, ?)`, [
          `seed-${i}`,
          `Seed ${i}`,
          prompt,
          i,
          1000 + i,
        ]);
      }
      return ok(undefined);
    });
    await store.whenIdle();
    installed = 0;
    const events = record(path.resolve(dir));

    // Requests as an owner takes them: a few writes a turn, each turn's saved by one fsync on the pool.
    let turn = 0;
    const saves: Promise<void>[] = [];
    while (installed < 2) {
      assert.ok(turn < 20_000, `two checkpoints were not installed within 20,000 turns (${installed})`);
      store.savingLater(() => {
        for (let i = 0; i < 4; i++) {
          store.write((tx) =>
            ok(tx.run(`UPDATE tasks SET title = ? WHERE id = ?`, [`turn ${turn} ${i}`, `seed-${(turn * 4 + i) % 1500}`])),
          );
        }
      });
      saves.push(store.whenSaved());
      turn++;
      await nextTurn();
    }
    await Promise.all(saves);
    await store.whenIdle();
    store.close();

    const journalFsyncsInFlight = new Set<number>();
    const overtaking: string[] = [];
    for (const event of events) {
      if (event.file === 'journal' && event.call === 'fsync') {
        if (event.at === 'issued') journalFsyncsInFlight.add(event.id);
        else journalFsyncsInFlight.delete(event.id);
      } else if (event.file === 'image' && event.at === 'issued' && journalFsyncsInFlight.size > 0) {
        overtaking.push(`image ${event.call} #${event.id} issued beside journal fsyncs ${[...journalFsyncsInFlight].join(', ')}`);
      }
    }
    const isImageCall = (event: Event): boolean => event.file === 'image' && event.at === 'issued';
    const imageCalls = events.filter(isImageCall).length;
    const first = events.findIndex(isImageCall);
    const last = events.length - 1 - [...events].reverse().findIndex(isImageCall);
    const journalFsyncsDuringImage = events
      .slice(first, last)
      .filter((event) => event.file === 'journal' && event.call === 'fsync' && event.at === 'issued').length;
    assert.ok(imageCalls >= 8, `the checkpoints wrote their images in chunks on the pool (${imageCalls} calls)`);
    assert.ok(journalFsyncsDuringImage > 0, 'group fsyncs ran while an image was being written (the case under test happened)');
    assert.deepEqual(overtaking, []);
  });
});

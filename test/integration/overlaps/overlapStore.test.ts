/**
 * Overlaps kept in the store (issue 33, docs/overlaps.md "What is kept where"): a real engine over a
 * real store (sql.js, or PostgreSQL with FOREMAN_TEST_STORE=postgres) and a real repository. What
 * the running tasks touched, an ignored pair, a plan and a `--paths` hint outlive the engine that
 * recorded them (an owner restart, a one-shot call): a second engine over the same store reports
 * the same overlaps. A task that stops running takes its rows with it. An old store migrates.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseCommand } from '../../../src/core/requests';
import { ok } from '../../../src/core/result';
import { Engine } from '../../../src/engine/engine';
import { readOverlaps } from '../../../src/engine/overlaps/overlapStore';
import * as q from '../../../src/engine/queries';
import { defaultEngineSettings } from '../../../src/engine/settings';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { SqlJsStore, migrations } from '../../../src/infra/db/index';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../../src/infra/fs';
import { GitPortAdapter } from '../../../src/infra/git/gitPort';
import { type EngineHarness, openEngine, testStore } from '../../support/engineHarness';

const harnesses: EngineHarness[] = [];
after(() => harnesses.forEach((harness) => harness.close()));

/** Another engine over the harness's store and repository: what an owner that starts again reads. */
function restarted(harness: EngineHarness): Engine {
  const foremanDir = join(harness.dir, '.foreman');
  return new Engine({
    store: harness.store,
    settings: defaultEngineSettings,
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(harness.dir, () => 'main', { branchTemplate: defaultEngineSettings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
    clock: harness.clock,
  });
}

function statusOf(engine: Engine): StatusSnapshot {
  const parsed = parseCommand('status', {});
  if (!parsed.ok) throw new Error(parsed.message);
  const status = engine.query(parsed.request);
  if (!status.ok) throw new Error(status.message);
  return status.value;
}

const overlapsIn = (status: StatusSnapshot, task: string) =>
  status.tasks.find((row) => row.id === task)?.overlaps.map((overlap) => [overlap.taskId, overlap.workerId, overlap.files, overlap.plan]);

describe(`overlaps in the store (${testStore})`, () => {
  it('keep touched files, an ignored pair, a plan and a hint across a restart; a task that stops running takes its rows', async () => {
    const harness = await openEngine();
    harnesses.push(harness);
    for (const [worker, task] of [
      ['w1', 'a'],
      ['w2', 'b'],
      ['w3', 'd'],
    ] as const) {
      await harness.value('worker.add', { id: worker });
      await harness.value('task.add', { title: `Task ${task}`, id: task });
      await harness.value('claim', { worker });
      await harness.value('start', { worker });
    }
    await harness.value('task.add', { title: 'Later', id: 'later', manual: true, paths: ['./src/shared.ts'] });
    await harness.value('heartbeat', { worker: 'w1', attempt: 1, touched: ['src/shared.ts', 'src/a.ts'] });
    await harness.value('heartbeat', { worker: 'w2', attempt: 1, touched: ['src/shared.ts'] });
    await harness.value('heartbeat', { worker: 'w3', attempt: 1, touched: ['src/shared.ts', 'src/a.ts'] });
    await harness.value('overlap.ignore', { task: 'b', other: 'd' });
    await harness.value('overlap.rebase-when-merged', { task: 'b', other: 'a' });
    const first = statusOf(harness.engine);

    // The owner goes; another engine reads the same store (as an owner that starts again, or a one-shot call).
    harness.engine.dispose();
    const again = restarted(harness);
    try {
      const status = statusOf(again);
      assert.deepEqual(
        overlapsIn(status, 'a'),
        [
          ['b', 'w2', ['src/shared.ts'], null],
          ['d', 'w3', ['src/a.ts', 'src/shared.ts'], null],
        ],
        'what each task touched is still known',
      );
      assert.deepEqual(overlapsIn(status, 'b'), [['a', 'w1', ['src/shared.ts'], 'rebase-when-merged']], 'the plan, and b–d still ignored');
      assert.deepEqual(overlapsIn(status, 'd'), [['a', 'w1', ['src/a.ts', 'src/shared.ts'], null]]);
      assert.deepEqual(
        status.tasks.map((task) => task.overlaps),
        first.tasks.map((task) => task.overlaps),
        'the same as before',
      );
      const hints = harness.store.read((reader) => reader.all<{ task_id: string; path: string }>('SELECT task_id, path FROM task_paths'));
      assert.deepEqual(hints, [{ task_id: 'later', path: 'src/shared.ts' }], 'the hint, normalised');

      // d fails for good: its files and its ignored pair go, and a no longer overlaps it.
      const failed = await again.execute(
        (() => {
          const parsed = parseCommand('fail', { worker: 'w3', reason: 'gave up', final: true });
          if (!parsed.ok) throw new Error(parsed.message);
          return parsed.request;
        })(),
      );
      assert.ok(failed.ok, failed.ok ? '' : failed.message);
      const after = statusOf(again);
      assert.deepEqual(
        overlapsIn(after, 'a')?.map(([task]) => task),
        ['b'],
      );
      const left = harness.store.read((reader) => ({
        touched: reader.all<{ task_id: string }>(`SELECT task_id FROM task_touched WHERE task_id = 'd'`).length,
        pairs: reader.all<{ task_id: string }>(`SELECT task_id FROM overlap_pairs WHERE task_id = 'd' OR other_id = 'd'`).length,
      }));
      assert.deepEqual(left, { touched: 0, pairs: 0 });
    } finally {
      again.dispose();
    }
  });
});

describe(
  'the overlap tables in an old store',
  { skip: testStore !== 'sqljs' && 'sql.js only: PostgreSQL runs the same migrations (pgStore.test.ts)' },
  () => {
    it('migrate from schema 12: the rows stay, the new tables are there and empty', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'foreman-overlap-migrate-'));
      try {
        const old = await SqlJsStore.open(dir, { migrations: migrations.slice(0, 12) });
        assert.equal(old.schemaVersion, 12);
        old.write((tx) => {
          q.insertTask(tx, {
            id: 'kept',
            title: 'Kept',
            prompt: '',
            parentId: null,
            autoDispatch: true,
            maxAttempts: 3,
            sortOrder: 1,
            createdAt: 1,
          });
          return ok(undefined);
        });
        old.close();
        const store = await SqlJsStore.open(dir);
        try {
          assert.equal(store.schemaVersion, migrations.at(-1)?.version);
          assert.ok(store.schemaVersion >= 13);
          assert.equal(store.read((reader) => q.findTask(reader, 'kept'))?.title, 'Kept');
          store.write((tx) => {
            q.insertTaskPath(tx, 'kept', 'src/app.ts');
            q.insertOverlapChoice(tx, 'kept', 'other', 'ignored', 2);
            return ok(undefined);
          });
          assert.equal(
            store.read((reader) => q.hasTaskPaths(reader)),
            true,
          );
          assert.deepEqual(
            store.read((reader) => readOverlaps(reader)('kept')),
            [],
            'nothing runs, so nothing overlaps',
          );
        } finally {
          store.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

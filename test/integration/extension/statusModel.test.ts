/**
 * The views' model (issue 13): fed only the rows each commit touched, it shows what a full read
 * shows. Random sequences of real engine commands on a real sql.js store; after each burst the
 * model reads the touched rows by id (as the owner session does), and must equal a fresh full read,
 * with a delta that names every row that changed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CommandInput, CommandName } from '../../../src/core/requests';
import type { StatusSnapshot, WorkerStatus } from '../../../src/engine/statusView';
import { StatusModel, touchedBy } from '../../../src/extension/statusModel';
import { type EngineHarness, openEngine } from '../../support/engineHarness';

/** A small seeded generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

/** Liveness counts time ("assigned 12s ago"); an untouched row keeps the words of its last read until the views' tick reads it again. */
const timeless = ({ heartbeatAgeMs: _age, livenessReason: _reason, liveness: _level, ...rest }: WorkerStatus) => rest;

function comparable(snapshot: StatusSnapshot, options: { exact: boolean }) {
  return {
    ...snapshot,
    workers: snapshot.workers.map((worker) => (options.exact ? { ...worker, heartbeatAgeMs: null } : timeless(worker))),
  };
}

/** Rows that differ between two reads (what a delta must name). */
function differing<T extends { id: string }>(before: readonly T[], after: readonly T[], key: (row: T) => unknown): Set<string> {
  const held = new Map(before.map((row) => [row.id, JSON.stringify(key(row))]));
  const ids = new Set<string>();
  for (const row of after) if (held.get(row.id) !== JSON.stringify(key(row))) ids.add(row.id);
  const now = new Set(after.map((row) => row.id));
  for (const row of before) if (!now.has(row.id)) ids.add(row.id);
  return ids;
}

describe('the status model fed by commits', () => {
  let harness: EngineHarness;
  before(async () => {
    harness = await openEngine();
  });
  after(() => harness.close());

  for (const seed of [7, 1234, 99_991]) {
    it(`equals a full read after every burst of random commands (seed ${seed})`, async () => {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(next() * items.length)];
      const model = new StatusModel();
      const touched = { workers: new Set<string>(), tasks: new Set<string>() };
      const listening = harness.engine.onDidCommit((events) => {
        const named = touchedBy(events);
        named.workers.forEach((id) => touched.workers.add(id));
        named.tasks.forEach((id) => touched.tasks.add(id));
      });
      const full = () => harness.query('status', {});
      model.replace(full());
      let made = 0;
      const prefix = `s${seed}`;
      const commands: Array<() => [CommandName, CommandInput<CommandName>] | undefined> = [
        () => ['worker.add', { id: `${prefix}-w${made++}` }],
        () => ['task.add', { title: `Task ${made}`, id: `${prefix}-t${made++}`, manual: next() < 0.5 }],
        () => ['chain.add', { name: `Chain ${made++}`, steps: [{ title: 'one' }, { title: 'two' }, { title: 'three' }] }],
        () => ['dispatch', {}],
        () => {
          const worker = pick(full().workers.filter((w) => w.state === 'IDLE'));
          const task = pick(full().tasks.filter((t) => t.status === 'queued' || t.status === 'idle'));
          return worker && task ? ['assign', { worker: worker.id, task: task.id }] : undefined;
        },
        () => {
          const worker = pick(full().workers.filter((w) => w.taskId));
          if (!worker) return undefined;
          const beat = next();
          return [
            'heartbeat',
            {
              worker: worker.id,
              attempt: worker.attempt,
              ...(beat < 0.3 ? { progress: Math.round(next() * 100) / 100 } : {}),
              ...(beat >= 0.3 && beat < 0.6 ? { activity: `Bash: step ${made++}` } : {}),
              ...(beat >= 0.6 && beat < 0.7 ? { needsInput: 'permission to run Bash' } : {}),
            },
          ];
        },
        () => {
          const worker = pick(full().workers.filter((w) => w.taskId));
          return worker ? ['usage', { worker: worker.id, inputTokens: 100, outputTokens: 20, costUsd: 0.01, run: true }] : undefined;
        },
        () => {
          const worker = pick(full().workers.filter((w) => w.state === 'ASSIGNED'));
          return worker ? ['start', { worker: worker.id }] : undefined;
        },
        () => {
          const worker = pick(full().workers.filter((w) => w.state === 'WORKING'));
          return worker ? ['submit', { worker: worker.id, summary: 'done by the test' }] : undefined;
        },
        () => {
          const worker = pick(full().workers.filter((w) => w.state === 'IN_REVIEW'));
          return worker ? [next() < 0.5 ? 'approve' : 'request-changes', { worker: worker.id, note: 'again' }] : undefined;
        },
        () => {
          const worker = pick(full().workers.filter((w) => w.taskId));
          return worker ? ['fail', { worker: worker.id, reason: 'the test says so' }] : undefined;
        },
        () => {
          const task = pick(full().tasks.filter((t) => t.status === 'failed' || t.status === 'cancelled'));
          return task ? ['retry', { task: task.id }] : undefined;
        },
        () => {
          const target =
            next() < 0.5 ? pick(full().workers.filter((w) => w.taskId)) : pick(full().tasks.filter((t) => t.status === 'queued'));
          return target ? ['cancel', { target: target.id }] : undefined;
        },
        () => {
          const worker = pick(full().workers.filter((w) => w.state === 'FAILED'));
          return worker ? ['reset', { worker: worker.id }] : undefined;
        },
        () => {
          const task = pick(full().tasks.filter((t) => t.status === 'idle' && !t.parentId && t.planningPhase === 'none'));
          return task ? ['plan.start', { parent: task.id }] : undefined;
        },
        () => ['archive', { olderThanMs: 0, limit: 3 }],
      ];
      for (let step = 0; step < 60; step++) {
        const burst = 1 + Math.floor(next() * 3);
        for (let n = 0; n < burst; n++) {
          harness.clock.advance(Math.floor(next() * 3000));
          const command = pick(commands)?.();
          if (command) await harness.run(command[0], command[1]);
        }
        const held = model.snapshot();
        const ids = model.rowsToRead(touched);
        touched.workers.clear();
        touched.tasks.clear();
        const delta = model.update(harness.query('status', { ids: { workers: [...ids.workers], tasks: [...ids.tasks] } }), ids);
        const fresh = full();
        const shown = comparable(model.snapshot(), { exact: false });
        const truth = comparable(fresh, { exact: false });
        const wrong = [
          ...differing(shown.tasks, truth.tasks, (task) => task),
          ...differing(shown.workers, truth.workers, (worker) => worker),
        ];
        if (wrong.length)
          console.error(
            JSON.stringify(
              {
                step,
                wrong,
                model: [...shown.tasks, ...shown.workers].filter((r) => wrong.includes(r.id)),
                truth: [...truth.tasks, ...truth.workers].filter((r) => wrong.includes(r.id)),
                ids,
              },
              null,
              1,
            ),
          );
        assert.deepEqual(shown, truth, `step ${step}: rows that differ: ${wrong.join(', ')}`);
        for (const id of differing(held.tasks, fresh.tasks, (task) => task))
          assert.ok(delta.tasks.has(id), `step ${step}: task ${id} changed unnamed`);
        for (const id of differing(held.workers, fresh.workers, timeless))
          assert.ok(delta.workers.has(id), `step ${step}: worker ${id} changed unnamed`);
        // The views' tick reads every worker again; then even the words that count time agree.
        const everyone = { workers: model.workerIds(), tasks: [] };
        model.update(harness.query('status', { ids: everyone }), everyone);
        assert.deepEqual(
          comparable(model.snapshot(), { exact: true }),
          comparable(full(), { exact: true }),
          `step ${step}, after the tick`,
        );
      }
      listening.dispose();
    });
  }
});

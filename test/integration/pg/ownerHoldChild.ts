/**
 * Owner A of owners.test.ts (or another owner, by its id, host and worker prefix: outage.test.ts):
 * registers its lease, adds its workers (on its host), lets its dispatcher hand them the queued
 * tasks and starts them (worktrees in its own clone), prints the assignments as one JSON line, and
 * keeps renewing its lease until the test SIGKILLs it.
 */
import { WorkerState } from '../../../src/core/workerMachine';
import * as q from '../../../src/engine/queries';
import { openOwnerEngine } from './ownerEngine';

const [url, workers, leaseMs, ownerId = 'owner-a', host = 'host-a', prefix = 'a'] = process.argv.slice(2);
if (!url || !workers || !leaseMs) throw new Error('usage: ownerHoldChild.ts <url> <workers> <leaseMs> [<owner id> <host> <worker prefix>]');
const owner = openOwnerEngine(url, { id: ownerId, host, pid: process.pid }, { ownerLeaseMs: Number(leaseMs) });
const ids = Array.from({ length: Number(workers) }, (_, i) => `${prefix}${i + 1}`);

void (async () => {
  for (const id of ids) {
    const added = await owner.run('worker.add', { id });
    if (!added.ok) throw new Error(added.message);
  }
  owner.engine.startBackground();
  // The dispatcher runs on the next turns of the event loop; wait until it assigned every worker.
  for (;;) {
    const assigned = owner.store.read((reader) => q.listWorkersIn(reader, WorkerState.Assigned));
    if (assigned.length === ids.length) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const held: Array<{ worker: string; task: string; attempt: number }> = [];
  for (const id of ids) {
    const started = await owner.run('start', { worker: id });
    if (!started.ok) throw new Error(`${id}: ${started.message}`);
    held.push({ worker: id, task: started.value.task_id ?? '', attempt: started.value.attempt });
  }
  process.stdout.write(`${JSON.stringify(held)}\n`);
  // Renewing its lease (engine timers) until killed.
  setInterval(() => undefined, 60_000);
})();

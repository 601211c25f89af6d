/**
 * One claiming process of bench/pgClaims.bench.ts: claims until the queue is empty, printing its
 * per-claim latencies. `engine`: the engine's own claim statement through PgStore (with its
 * transition, as the state service writes one); `raw`: a bare `FOR UPDATE SKIP LOCKED` claim through
 * the same synchronous client, the ceiling a queue on this server can reach (pg-boss claims this way).
 */
import { performance } from 'node:perf_hooks';
import { ok } from '../src/core/result';
import * as q from '../src/engine/queries';
import { PgStore } from '../src/infra/pg/pgStore';
import { SyncPgClient } from '../src/infra/pg/syncClient';

const [mode, url, worker, startAtText] = process.argv.slice(2);
if ((mode !== 'engine' && mode !== 'raw') || !url || !worker)
  throw new Error('usage: pgClaimsChild.ts <engine|raw> <url> <worker> <startAtMs>');
const latencies: number[] = [];
// Connected before the start: a claim's time is the claim's, not the connection's.
const store = mode === 'engine' ? PgStore.open(url) : undefined;
const client = mode === 'raw' ? new SyncPgClient(url) : undefined;
client?.query('SELECT 1');
// Every process starts at the same moment (after each has loaded), so the claims overlap.
while (Date.now() < Number(startAtText)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
const startedAt = Date.now();
const cpuBefore = process.cpuUsage();

if (store) {
  const statement = q.compileClaimNext('foreman/{worker}/{task}');
  for (;;) {
    const started = performance.now();
    const result = store.write((tx) => {
      const now = Date.now();
      const claimed = q.claimNextTask(tx, statement, now, worker);
      if (claimed) q.insertTransition(tx, now, 'task', claimed.id, 'queued', 'running', 'claim', null, worker, claimed.attempt, null, null);
      return ok(claimed);
    });
    if (!result.ok) throw new Error(result.message);
    if (!result.value) break;
    latencies.push(performance.now() - started);
  }
  store.close();
} else if (client) {
  for (;;) {
    const started = performance.now();
    const { rows } = client.query(
      `UPDATE tasks SET status = 'running', worker_id = $1
         WHERE id = (SELECT id FROM tasks WHERE status = 'queued' ORDER BY sort_order LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [worker],
    );
    if (rows.length === 0) break;
    latencies.push(performance.now() - started);
  }
  client.close();
}
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(JSON.stringify({ latencies, startedAt, endedAt: Date.now(), cpuMs: (cpu.user + cpu.system) / 1000 }));

/** One claiming process of pg/pgStore.test.ts: the engine's own claim statement on a PgStore, until the queue is empty. */
import { ok } from '../../../src/core/result';
import * as q from '../../../src/engine/queries';
import { PgStore } from '../../../src/infra/pg/pgStore';

const [url, worker] = process.argv.slice(2);
if (!url || !worker) throw new Error('usage: engineClaimChild.ts <url> <worker>');
const store = PgStore.open(url);
const statement = q.compileClaimNext('foreman/{worker}/{task}');
const claimed: string[] = [];
for (;;) {
  const result = store.write((tx) => ok(q.claimNextTask(tx, statement, Date.now(), worker)));
  if (!result.ok) throw new Error(result.message);
  if (!result.value) break;
  claimed.push(result.value.id);
}
store.close();
process.stdout.write(JSON.stringify(claimed));

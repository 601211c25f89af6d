/** One claiming process of pg/syncClient.test.ts: claims until the queue is empty, prints the ids it got. */
import { SyncPgClient } from '../../../src/infra/pg/syncClient';

const [url] = process.argv.slice(2);
if (!url) throw new Error('usage: claimChild.ts <url>');
const client = new SyncPgClient(url);
const claimed: number[] = [];
for (;;) {
  const { rows } = client.query<{ id: number }>(
    `UPDATE queue SET status = 'claimed', claimed_by = $1
       WHERE id = (SELECT id FROM queue WHERE status = 'queued' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
     RETURNING id`,
    [process.pid],
  );
  const row = rows[0];
  if (!row) break;
  claimed.push(row.id);
}
client.close();
process.stdout.write(JSON.stringify(claimed));

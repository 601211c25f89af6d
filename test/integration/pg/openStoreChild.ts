/**
 * One owner of flatOwners.test.ts's start-up race: opens the store at `url` (migrating it, or
 * waiting for the owner that does) with statements that time out after `statementTimeoutMs`, and
 * starts listening, as an owner does, then says `opened`, or why not on stderr with exit code 1.
 */
import { PgListener } from '../../../src/infra/pg/listener';
import { PgStore } from '../../../src/infra/pg/pgStore';

const [url, ownerId, timeoutText] = process.argv.slice(2);
if (!url || !ownerId) throw new Error('usage: openStoreChild.ts <url> <owner> [statementTimeoutMs]');
void (async () => {
  try {
    const store = PgStore.open(url, { ownerId, ...(timeoutText ? { statementTimeoutMs: Number(timeoutText) } : {}) });
    const listener = new PgListener(url, { self: ownerId, onChange: () => undefined });
    await listener.ready;
    store.read((reader) => reader.get('SELECT count(*) AS workers FROM workers'));
    await listener.close();
    store.close();
    process.stdout.write('opened\n');
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
})();

/**
 * One claiming process of owners.test.ts: an engine with an owner identity on its own PgStore, whose
 * workers (`<prefix>-0` … `<prefix>-<count-1>`, seeded by the test) each claim once through the
 * engine's front door. Prints the claims as JSON: [task, attempt] pairs.
 */
import { openOwnerEngine } from './ownerEngine';

const [url, ownerId, host, prefix, count] = process.argv.slice(2);
if (!url || !ownerId || !host || !prefix || !count) throw new Error('usage: ownersClaimChild.ts <url> <owner> <host> <prefix> <count>');
const owner = openOwnerEngine(url, { id: ownerId, host });
const claims: Array<[string, number]> = [];
void (async () => {
  for (let i = 0; i < Number(count); i++) {
    const claimed = await owner.run('claim', { worker: `${prefix}-${i}` });
    if (!claimed.ok) throw new Error(`${prefix}-${i}: ${claimed.message}`);
    if (claimed.value) claims.push([claimed.value.id, claimed.value.attempt]);
  }
  owner.close();
  process.stdout.write(JSON.stringify(claims));
})();

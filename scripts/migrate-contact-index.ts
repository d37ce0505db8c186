/**
 * `pnpm migrate:contact-index`: copies the contact index from its key names before cluster support
 * (`forms:<queue>:contact-id:<email>`, an email in a key name) to the current ones
 * (`<QUEUE_PREFIX>:<queue>:contact:<32 hex of sha256 of the email>`, expiring like the gateway's). Without it, an email known before the upgrade
 * would be answered as new once, with a contact id the CRM does not use. Run it when the new gateways
 * start, and once more after the last old gateway has stopped: it never overwrites (SET NX), so runs
 * repeat safely. Old keys are left in place; delete them once the new index is in use. Reads the same
 * REDIS_URL / QUEUE_PREFIX as the apps; a single Redis only (no deployment had the old keys on a cluster).
 */
import { loadConfig, submissionKeys } from '@forms/gateway';
import { readRedisSettings } from '@forms/schemas';
import { Redis } from 'ioredis';

const settings = readRedisSettings(process.env);
const CONTACT_INDEX_TTL_SECONDS = loadConfig(process.env).contactIndexTtlSeconds;
if (settings.mode !== 'single') throw new Error('the old contact index only ever lived on a single Redis');
const redis = new Redis(settings.url, { maxRetriesPerRequest: 3 });
const OLD = /^forms:([\w-]+):contact-id:(.+)$/;
let cursor = '0';
let copied = 0;
let seen = 0;
// Bounded: SCAN ends when the cursor returns to 0; the turn limit only stops a runaway.
for (let turn = 0; turn < 1_000_000; turn++) {
  const [next, keys] = await redis.scan(cursor, 'MATCH', 'forms:*:contact-id:*', 'COUNT', 1000);
  for (const key of keys) {
    const match = OLD.exec(key);
    if (!match) continue;
    seen++;
    const id = await redis.get(key);
    if (!id) continue;
    // The gateway's own key name (submission-keys.ts), with its expiry, so the two can never disagree.
    const current = submissionKeys(settings, match[1]!).contact(match[2]!);
    if (await redis.set(current, id, 'EX', CONTACT_INDEX_TTL_SECONDS, 'NX')) copied++;
  }
  cursor = next;
  if (cursor === '0') break;
}
console.log(`contact index: ${seen} old keys, ${copied} copied to the new names`);
redis.disconnect();

/**
 * The floor under any gateway that keeps Koa, for `pnpm bench:gateway`: one Koa middleware that reads the
 * raw body, `JSON.parse`s it and `await queue.add(name, body)`s it. No validation, no metrics, no ids, no
 * claim: what the gateway is measured against (ours ÷ this floor). argv: Redis URL, port, queue name, mode:
 * - `bare` (the default): the floor itself;
 * - `claim`: the floor plus one small claim script before the add (an email's `SET … NX GET EX` and a
 *   client's `INCR`, as the gateway's claim does), what keeping the claim costs (`BENCH_FLOOR=1`);
 * - `claim-auto`: the same with ioredis auto-pipelining on (what the gateway had before, measured against).
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import Koa from 'koa';

const [redisUrl, port, queueName, mode = 'bare'] = process.argv.slice(2) as [string, string, string, string?];
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, enableAutoPipelining: mode === 'claim-auto' });
redis.defineCommand('claim', {
  numberOfKeys: 2,
  lua: `local known = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'GET', 'EX', 3600)
local used = redis.call('INCR', KEYS[2])
if used == 1 then redis.call('PEXPIRE', KEYS[2], 60000) end
return known or ARGV[1]`,
});
const claim = mode === 'bare' ? undefined : (redis as Redis & { claim(...args: string[]): Promise<string> }).claim;
const queue = new Queue(queueName, { connection: redis });
await queue.waitUntilReady();

let n = 0;
const app = new Koa();
app.use(async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (claim) await claim.call(redis, `floor:contact:${body.email}`, `floor:rate:${n++ % 1000}`, 'con_x');
  await queue.add('contact.v1', body);
  ctx.body = { success: true };
});
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => process.exit(0));

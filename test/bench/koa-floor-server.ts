/**
 * What "keep Koa" leaves of the baseline, for `BENCH_FLOOR=1 pnpm bench:gateway`: one Koa middleware that
 * reads the body, `JSON.parse`s it, runs one small claim script (an email's `SET … NX GET EX` and a client's
 * `INCR`, as the gateway's claim does) and then `await queue.add(name, body)`. No validation, no metrics, no
 * ids: the floor under any gateway that keeps Koa and the claim. argv: Redis URL, port, queue name, and
 * `auto` to turn on ioredis auto-pipelining (what the gateway had before, measured against).
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import Koa from 'koa';

const [redisUrl, port, queueName, pipelining] = process.argv.slice(2) as [string, string, string, string?];
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, enableAutoPipelining: pipelining === 'auto' });
redis.defineCommand('claim', {
  numberOfKeys: 2,
  lua: `local known = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'GET', 'EX', 3600)
local used = redis.call('INCR', KEYS[2])
if used == 1 then redis.call('PEXPIRE', KEYS[2], 60000) end
return known or ARGV[1]`,
});
const claim = (redis as Redis & { claim(...args: string[]): Promise<string> }).claim.bind(redis);
const queue = new Queue(queueName, { connection: redis });
await queue.waitUntilReady();

let n = 0;
const app = new Koa();
app.use(async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  await claim(`floor:contact:${body.email}`, `floor:rate:${n++ % 1000}`, 'con_x');
  await queue.add('contact.v1', body);
  ctx.body = { success: true };
});
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));

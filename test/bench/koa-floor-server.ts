/**
 * The floor under any gateway that keeps Koa, for `pnpm bench:gateway`: one Koa middleware that reads the
 * raw body, `JSON.parse`s it and `await queue.add(name, body)`s it. No validation, no metrics, no ids, no
 * claim: what the gateway is measured against (ours ÷ this floor). argv: Redis URL, port, queue name, mode:
 * - `bare` (the default): the floor itself;
 * - `claim`: the floor plus one small claim script before the add (an email's `SET … NX GET EX` and a
 *   client's `INCR`, as the gateway's claim does), what keeping the claim costs (`BENCH_FLOOR=1`);
 * - `claim-batched`: the same claim sent as the gateway sends it: the calls of a turn as one script call
 *   (`scriptBatch`), the adds held to the end of the turn (`writeAtEndOfTurn`);
 * - `claim-auto`: the same with ioredis auto-pipelining on (what the gateway had before, measured against).
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import Koa from 'koa';
import { writeAtEndOfTurn } from '../../apps/gateway/src/submissions/queue.ts';
import { scriptBatch } from '../../apps/gateway/src/submissions/script-batch.ts';

const [redisUrl, port, queueName, mode = 'bare'] = process.argv.slice(2) as [string, string, string, string?];
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, enableAutoPipelining: mode === 'claim-auto' });
const CLAIM_LUA = `local known = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'GET', 'EX', 3600)
local used = redis.call('INCR', KEYS[2])
if used == 1 then redis.call('PEXPIRE', KEYS[2], 60000) end
return known or ARGV[1]`;
redis.defineCommand('claim', { numberOfKeys: 2, lua: CLAIM_LUA });
type Claim = (keys: [string, string], args: [string]) => Promise<string>;
const claimCommand = (redis as Redis & { claim(...args: string[]): Promise<string> }).claim.bind(redis);
const claim: Claim | undefined =
  mode === 'bare'
    ? undefined
    : mode === 'claim-batched'
      ? scriptBatch(redis, 'floorClaim', CLAIM_LUA, 1_000)
      : (keys, args) => claimCommand(...keys, ...args);
const queue = new Queue(queueName, { connection: redis });
await queue.waitUntilReady();

let n = 0;
const app = new Koa();
app.use(async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (claim) await claim([`floor:contact:${body.email}`, `floor:rate:${n++ % 1000}`], ['con_x']);
  if (mode === 'claim-batched') writeAtEndOfTurn(redis);
  await queue.add('contact.v1', body);
  ctx.body = { success: true };
});
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => process.exit(0));

import { createWriteBatcher } from '@forms/runtime';
import type { Cluster, Redis } from 'ioredis';
import { queueUnavailable, withRedisDeadline } from '../redis-deadline.ts';

/** One call of a batched script: its keys and arguments. */
type Call = { keys: string[]; args: string[] };

type BatchingRedis = (Redis | Cluster) & Record<string, (...args: (string | number)[]) => Promise<unknown[]>>;

/**
 * A Lua script whose calls made in one turn of the event loop go to Redis as one EVALSHA: the script's body
 * becomes a function run once per call, in order, each with its own KEYS and ARGV, and the replies come back
 * as one array, split here. Redis runs one script instead of one per submission and the connection builds,
 * writes and parses one command; each call still gets its own reply, atomically, as if sent alone (the batch
 * as a whole is atomic too). `lua` is written as for a lone call: it reads `KEYS` and `ARGV` and returns a
 * value (never nil). On a cluster every call's keys must hash to one slot (ours share the queue's hash tag).
 *
 * The turn's calls are gathered by the group commit the worker's Postgres writes use (`createWriteBatcher`),
 * with nothing held back: every turn's batch leaves at the end of that turn, whatever is in flight. A Redis
 * that fails or does not answer within `timeoutMs` fails every call of the batch with 503, and so does a
 * script error in any one call (a key of the wrong type: data no submission writes).
 */
export function scriptBatch(redis: Redis | Cluster, name: string, lua: string, timeoutMs: number) {
  const command = `${name}Batch`;
  if (!(command in redis)) redis.defineCommand(command, { lua: batchedLua(lua) });
  const batcher = createWriteBatcher<Call, unknown>({
    maxBatch: Number.POSITIVE_INFINITY,
    maxInFlight: Number.POSITIVE_INFINITY,
    async write(calls) {
      const keys: string[] = [];
      const args: string[] = [String(calls.length)];
      for (const call of calls) {
        keys.push(...call.keys);
        args.push(String(call.keys.length), String(call.args.length), ...call.args);
      }
      try {
        const replies = await withRedisDeadline(
          (redis as BatchingRedis)[command]!(keys.length, ...keys, ...args),
          timeoutMs,
        );
        return replies.map((value) => ({ status: 'fulfilled', value }));
      } catch (err) {
        // Each request gets an error of its own (the error handler and CORS write onto it).
        const cause = (err as Error).cause ?? err;
        return calls.map(() => ({ status: 'rejected', reason: queueUnavailable(cause) }));
      }
    },
  });
  return <Reply>(keys: string[], args: string[]) => batcher.add({ keys, args }) as Promise<Reply>;
}

/** ARGV: the number of calls, then per call its number of keys, its number of arguments and the arguments. */
function batchedLua(lua: string): string {
  return `
local function one(KEYS, ARGV)
${lua}
end
local replies, k, a = {}, 0, 2
for c = 1, tonumber(ARGV[1]) do
  local nk, na = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local keys, args = {}, {}
  for i = 1, nk do keys[i] = KEYS[k + i] end
  for i = 1, na do args[i] = ARGV[a + 1 + i] end
  k, a = k + nk, a + 2 + na
  replies[c] = one(keys, args)
end
return replies
`;
}

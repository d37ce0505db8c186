import type { Cluster, Redis } from 'ioredis';
import { queueUnavailable, withRedisDeadline } from '../redis-deadline.ts';

/** One call of a batched script: its keys and arguments, and where its reply goes. */
type Call = { keys: string[]; args: string[]; resolve: (reply: unknown) => void; reject: (err: unknown) => void };

type BatchingRedis = (Redis | Cluster) & Record<string, (...args: (string | number)[]) => Promise<unknown[]>>;

/**
 * A Lua script whose calls made in one turn of the event loop go to Redis as one EVALSHA: the script's body
 * becomes a function run once per call, in order, each with its own KEYS and ARGV, and the replies come back
 * as one array, split here. Redis runs one script instead of one per submission and the connection builds,
 * writes and parses one command; each call still gets its own reply, atomically, as if sent alone (the batch
 * as a whole is atomic too). `lua` is written as for a lone call: it reads `KEYS` and `ARGV` and returns a
 * value (never nil). On a cluster every call's keys must hash to one slot (ours share the queue's hash tag).
 *
 * The batch leaves at the end of the turn (setImmediate), when the turn's requests have made their calls; a
 * Redis that fails or does not answer within `timeoutMs` fails every call of the batch with 503, and so does
 * a script error in any one call (a key of the wrong type: data no submission writes).
 */
export function scriptBatch(redis: Redis | Cluster, name: string, lua: string, timeoutMs: number) {
  const command = `${name}Batch`;
  if (!(command in redis)) redis.defineCommand(command, { lua: batchedLua(lua) });
  let pending: Call[] | undefined;

  function flush() {
    const calls = pending!;
    pending = undefined;
    const keys: string[] = [];
    const args: string[] = [String(calls.length)];
    for (const call of calls) {
      keys.push(...call.keys);
      args.push(String(call.keys.length), String(call.args.length), ...call.args);
    }
    withRedisDeadline((redis as BatchingRedis)[command]!(keys.length, ...keys, ...args), timeoutMs).then(
      (replies) => {
        for (let i = 0; i < calls.length; i++) calls[i]!.resolve(replies[i]);
      },
      (err: Error) => {
        // Each request gets an error of its own (the error handler and CORS write onto it).
        for (const call of calls) call.reject(queueUnavailable(err.cause ?? err));
      },
    );
  }

  return function call<Reply>(keys: string[], args: string[]): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      if (!pending) {
        pending = [];
        setImmediate(flush);
      }
      pending.push({ keys, args, resolve: resolve as (reply: unknown) => void, reject });
    });
  };
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

import type { Cluster, Redis } from 'ioredis';

// One script, atomic, so a submission counts once whatever ops do twice: the label each submission was taught
// as is kept (`t:<id>`); the same label again changes nothing, the other label moves its counts across.
// KEYS: [model hash]. ARGV: submission id, label (spam|ham), then its features (base 36).
const TRAIN_SCRIPT = `
local model, id, label = KEYS[1], ARGV[1], ARGV[2]
local before = redis.call('HGET', model, 't:' .. id)
if before == label then return 0 end
local add, sub = 's:', 'h:'
if label == 'ham' then add, sub = 'h:', 's:' end
for i = 3, #ARGV do
  redis.call('HINCRBY', model, add .. ARGV[i], 1)
  if before then redis.call('HINCRBY', model, sub .. ARGV[i], -1) end
end
redis.call('HINCRBY', model, 'docs:' .. label, 1)
if before then redis.call('HINCRBY', model, 'docs:' .. before, -1) end
redis.call('HSET', model, 't:' .. id, label)
return 1
`;

type TrainingRedis = (Redis | Cluster) & {
  trainSpamModel(numKeys: number, ...args: string[]): Promise<number>;
};

/**
 * Teaches the shared model that one submission is spam or ham (`ops spam mark`, `ops spam release`). True when
 * it changed the model; false when the submission was taught so already. The hash grows by at most
 * MAX_FEATURES fields per submission taught.
 */
export async function trainSpamModel(
  redis: Redis | Cluster,
  modelKey: string,
  submissionId: string,
  label: 'spam' | 'ham',
  features: ReadonlySet<number>,
): Promise<boolean> {
  if (!('trainSpamModel' in redis)) redis.defineCommand('trainSpamModel', { lua: TRAIN_SCRIPT });
  const keys = [...features].map((f) => f.toString(36));
  return (await (redis as TrainingRedis).trainSpamModel(1, modelKey, submissionId, label, ...keys)) === 1;
}

import type { Cluster, Redis } from 'ioredis';
import type { SpamModel } from './score-spam.ts';

/**
 * The one owner of what ops taught the content filter, the Redis hash `<P>:<q>:spam:model` (docs/privacy.md):
 * - `docs:spam`, `docs:ham`: how many submissions were taught as each;
 * - `s:<feature>`, `h:<feature>`: in how many of them a feature appeared (feature: its hash in base 36);
 * - `t:<submission id>`: the label that submission was taught, so a submission counts once.
 * Written only by trainSpamModel (ops' `spam mark` and `spam release`), read only through withLearned
 * (the filter), and built in memory only by learnedHash (the benchmark's teaching).
 */

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

/** The hash as trainSpamModel leaves it after teaching these submissions once each (the benchmark's ops). */
export function learnedHash(
  taught: Iterable<{ id: string; label: 'spam' | 'ham'; features: ReadonlySet<number> }>,
): Record<string, string> {
  const hash: Record<string, string> = {};
  const bump = (field: string) => {
    hash[field] = String(Number(hash[field] ?? 0) + 1);
  };
  for (const { id, label, features } of taught) {
    if (hash[`t:${id}`]) continue;
    const side = label === 'spam' ? 's:' : 'h:';
    for (const f of features) bump(side + f.toString(36));
    bump(`docs:${label}`);
    hash[`t:${id}`] = label;
  }
  return hash;
}

/** How many submissions of each label this deployment taught. */
function taughtLabels(learned: Record<string, string>): { spam: number; ham: number } {
  return { spam: Math.max(0, Number(learned['docs:spam'] ?? 0)), ham: Math.max(0, Number(learned['docs:ham'] ?? 0)) };
}

/**
 * How much one label of this deployment's weighs: this share of its class's starting documents (10 of the
 * corpus's 500 spam, 50 of its 2,500 ham), so teaching both labels dilutes both classes alike. A fixed weight
 * for both (30 messages) made every untaught spam word about three times weaker after 25 of each, and less
 * spam was held; a larger share held ham after teaching (docs/benchmarks.md#spam-filter). Three labels still
 * outweigh the corpus on their own words (content-filter-learns-from-ops.test.ts).
 */
export const LABEL_SHARE = 0.02;

/** The starting model plus what ops taught, each label weighing LABEL_SHARE of its class; neither input is changed. */
export function withLearned(start: SpamModel, learned: Record<string, string>): SpamModel {
  const weight = { s: Math.max(1, start.spamDocs * LABEL_SHARE), h: Math.max(1, start.hamDocs * LABEL_SHARE) };
  const features = new Map(start.features);
  for (const [field, value] of Object.entries(learned)) {
    const side = field[0];
    if ((side !== 's' && side !== 'h') || field[1] !== ':') continue;
    const feature = Number.parseInt(field.slice(2), 36);
    const [spam, ham] = features.get(feature) ?? [0, 0];
    const n = (Number(value) || 0) * weight[side];
    features.set(feature, side === 's' ? [Math.max(0, spam + n), ham] : [spam, Math.max(0, ham + n)]);
  }
  const taught = taughtLabels(learned);
  return {
    spamDocs: start.spamDocs + taught.spam * weight.s,
    hamDocs: start.hamDocs + taught.ham * weight.h,
    features,
  };
}

import type { Cluster, Redis } from 'ioredis';

/**
 * - `recorded`: none was recorded; this process's value now is;
 * - `agrees` / `differs`: the recorded value is / is not one of this process's;
 * - `unrecorded`: none recorded and `record` was false (a dry run records nothing).
 */
export type SecretCheck = 'recorded' | 'agrees' | 'differs' | 'unrecorded';

/**
 * Compares a shared secret's check value with the one recorded in Redis at `key`, recording `values[0]` (this
 * process's current secret) when none is and `record` is set. `values` may hold a second, previous secret's
 * value: a process in a rotation window agrees with either. A read first, so the check every few seconds
 * writes nothing; the record is a SET NX, so of two first starts with different secrets one wins and the
 * other is told it differs.
 */
export async function checkSharedSecret(
  redis: Redis | Cluster,
  { key, values, record = true }: { key: string; values: readonly string[]; record?: boolean },
): Promise<SecretCheck> {
  const compare = (recorded: string) => (values.includes(recorded) ? 'agrees' : 'differs');
  const recorded = await redis.get(key);
  if (recorded !== null) return compare(recorded);
  if (!record) return 'unrecorded';
  if ((await redis.set(key, values[0]!, 'NX')) === 'OK') return 'recorded';
  const first = await redis.get(key);
  return first === null ? 'unrecorded' : compare(first);
}

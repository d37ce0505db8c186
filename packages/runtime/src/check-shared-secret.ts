import type { Cluster, Redis } from 'ioredis';

/**
 * - `recorded`: none was recorded; this process's value now is (SET NX: of two first starts, one wins and the
 *   other compares);
 * - `agrees` / `differs`: the recorded value is / is not one of this process's;
 * - `unrecorded`: none recorded and `record` was false (a dry run records nothing).
 */
export type SecretCheck = 'recorded' | 'agrees' | 'differs' | 'unrecorded';

/**
 * Compares a shared secret's check value with the one recorded in Redis at `key`, recording `values[0]` (this
 * process's current secret) when none is and `record` is set. `values` may hold a second, previous secret's
 * value: a process in a rotation window agrees with either.
 */
export async function checkSharedSecret(
  redis: Redis | Cluster,
  { key, values, record = true }: { key: string; values: readonly string[]; record?: boolean },
): Promise<SecretCheck> {
  if (record && (await redis.set(key, values[0]!, 'NX')) === 'OK') return 'recorded';
  const recorded = await redis.get(key);
  if (recorded === null) return record ? 'recorded' : 'unrecorded';
  return values.includes(recorded) ? 'agrees' : 'differs';
}

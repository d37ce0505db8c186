import type { Redis } from 'ioredis';
import { newId } from './ids.ts';
import { withQueueDeadline } from './queue.ts';

/**
 * The email → contact id index. One `SET key id NX GET` both claims a new id and reads an existing one,
 * atomically, so two gateways racing on one new email agree on its id. The CRM is never asked on the
 * request path. `known` is true exactly when the email had been seen before.
 */
export async function claimContactId(
  redis: Redis,
  queueName: string,
  email: string,
  timeoutMs: number,
): Promise<{ recordId: string; known: boolean }> {
  const candidate = newId('con');
  const key = `forms:${queueName}:contact-id:${email}`;
  const previous = await withQueueDeadline(redis.set(key, candidate, 'NX', 'GET'), timeoutMs);
  return previous ? { recordId: previous, known: true } : { recordId: candidate, known: false };
}

import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { isRedisTransition } from './is-redis-transition.ts';

/** An error as the gateway's 503 wraps it (redis-deadline.ts): the Redis failure is its cause. */
const wrapped = (cause: unknown) => Object.assign(new Error('Redis could not take the submission'), { cause });

describe('isRedisTransition', () => {
  // The texts ioredis and Redis 7.0 produce, as the cluster and fault tests met them.
  it.each([
    new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot'),
    new ReplyError('CLUSTERDOWN The cluster is down'),
    new ReplyError('MOVED 7311 127.0.0.1:26220'),
    new ReplyError('ASK 7311 127.0.0.1:15145'),
    new ReplyError('LOADING Redis is loading the dataset in memory'),
    new ReplyError("READONLY You can't write against a read only replica."),
    new ReplyError('UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)'),
    new Error('Too many Cluster redirections. Last error: ReplyError: TRYAGAIN Multiple keys request'),
    new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    new Error("Cluster isn't ready and enableOfflineQueue options is false"),
    new Error('Connection is closed.'),
    new Error(
      'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
    ),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' }),
    Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    Object.assign(new Error('Redis did not answer within 1000 ms'), { code: 'REDIS_DEADLINE' }),
    Object.assign(new Error('0 of 1 replicas acknowledged the job within 1000 ms'), { code: 'REPLICAS_BEHIND' }),
  ])('holds through %s, bare or as a cause', (err) => {
    expect(isRedisTransition(err)).toBe(true);
    expect(isRedisTransition(wrapped(err))).toBe(true);
  });

  // Faults that waiting does not mend: the 503 at once.
  it.each([
    new ReplyError("OOM command not allowed when used memory > 'maxmemory'."),
    new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'),
    new ReplyError('ERR Error running script (call to f_…): @user_script:12: wrong number of arguments'),
    new ReplyError('NOSCRIPT No matching script. Please use EVAL.'),
    new Error('Cluster is ended.'),
    new TypeError("Cannot read properties of undefined (reading 'split')"),
  ])('answers %s at once', (err) => {
    expect(isRedisTransition(err)).toBe(false);
    expect(isRedisTransition(wrapped(err))).toBe(false);
  });

  it('is false for what is not an error', () => {
    expect(isRedisTransition(undefined)).toBe(false);
    expect(isRedisTransition('ECONNREFUSED')).toBe(false);
  });
});

import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { isRedisTransition } from '@forms/runtime';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/wait.ts';

// The durable-ack WAIT (REDIS_ACK_REPLICAS) blocks on the master that took the add. A master demoted while
// it waits (a stale master woken from a pause learns that its replica was promoted) answers the WAIT with
// `UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)`, which the
// gateway took for a fault no wait mends and answered 503 at once: 14 requests in one failover run of
// master-killed-with-durable-acks (stop), 2.9 s into a 10 s hold. It is a transition: the hold rides it.
// So is the WAIT a paused master reads only once woken and demoted (`ERR WAIT cannot be used with replica
// instances`): 6 requests answered 503 in a run of the same test beside a CPU burner, 14 in a CI run.
let master: LocalRedis;
let other: LocalRedis;
const clients: Redis[] = [];

beforeAll(async () => {
  [master, other] = await Promise.all([startRedisServer(), startRedisServer()]);
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await Promise.all([master?.stop(), other?.stop()]);
});

it('wait-cut-short-by-a-demotion-is-a-transition: the reply Redis gives is one the hold rides', async () => {
  const producer = new Redis(master.url, { maxRetriesPerRequest: 1 });
  const admin = new Redis(master.url);
  clients.push(producer, admin);
  await producer.set('job', 'added');
  const waited = producer.wait(1, 30_000).then(
    (count) => ({ count }),
    (err: Error) => ({ err }),
  );
  await eventually(async () => /blocked_clients:[1-9]/.test(await admin.info('clients')), {
    timeoutMs: 5_000,
    explain: () => 'the WAIT never blocked',
  });
  await admin.replicaof('127.0.0.1', String(other.port));
  const answer = await waited;
  expect('err' in answer && answer.err.message).toMatch(/^UNBLOCKED /);
  expect('err' in answer && isRedisTransition(answer.err)).toBe(true);
}, 30_000);

it('wait-reaching-a-demoted-master-is-a-transition: the reply to a WAIT read after the demotion', async () => {
  const producer = new Redis(master.url, { maxRetriesPerRequest: 1 });
  const admin = new Redis(master.url);
  clients.push(producer, admin);
  await admin.replicaof('127.0.0.1', String(other.port));
  const answer = await producer.wait(1, 1_000).then(
    (count) => ({ count }),
    (err: Error) => ({ err }),
  );
  expect('err' in answer && answer.err.message).toMatch(/^ERR WAIT cannot be used with replica instances/);
  expect('err' in answer && isRedisTransition(answer.err)).toBe(true);
}, 30_000);

import { createObjectStorage, type ObjectStorage } from '@forms/object-storage';
import { checkSharedSecret } from '@forms/runtime';
import { secretCheckValue, sharedSecretKeys } from '@forms/schemas';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import type { WorkerConfig } from '../config.ts';
import { createWorkerRedis } from '../create-worker-redis.ts';
import type { Crm } from '../crm/crm.ts';
import { openCrm } from '../open-crm.ts';
import { EraseRefused, type Eraser, erasableAddress, erasePerson } from './erase-person.ts';
import { localEraseSocket, remoteEraser, usesEmbeddedPglite, workerAnswersOn } from './local-erase-socket.ts';

/** An erase through a running worker: its jobs' wait (60 s at most) and the stores' deadlines, with room. */
const ERASE_ANSWER_TIMEOUT_MS = 120_000;

/**
 * `erasePerson` wired to the worker's configuration: its queue, its Redis, its CRM and bucket. Used by the
 * worker's admin route and by `ops erase`, so both erase exactly the same way. Without ERASURE_KEY every
 * call is refused (`EraseRefused`) before anything is read: no tombstone could be written. With an
 * ERASURE_KEY that differs from the one recorded in Redis (by the first worker or erase), alike: its
 * tombstone would bear a name no worker looks for. The first erase records it when no worker has.
 */
export function openEraser({
  config,
  crm,
  storage,
  actor,
}: {
  config: WorkerConfig;
  crm: Crm;
  storage: ObjectStorage | undefined;
  actor: string;
}): Eraser {
  const redis = createWorkerRedis(config.redis);
  const queue = new Queue(config.queueName, { connection: redis, prefix: config.redis.prefix });
  return {
    async erase(address, options) {
      erasableAddress(address);
      if (!config.erasureKey)
        throw new EraseRefused('ERASURE_KEY is not set: erase needs it to write the tombstone and the audit entry');
      await refuseDifferentErasureKey(redis, config, { record: !options.dryRun });
      return erasePerson(
        {
          queue,
          redis,
          settings: config.redis,
          queueName: config.queueName,
          crm,
          storage,
          secret: config.erasureKey,
          previousSecret: config.erasureKeyPrevious,
          tombstoneDays: config.tombstoneDays,
          actor,
        },
        address,
        options,
      );
    },
    async close() {
      await queue.close();
      redis.disconnect();
    },
  };
}

/**
 * An eraser outside a worker (`ops erase`): opens the worker's CRM and bucket from its configuration, and
 * closes them with it. With the embedded PGlite held by a running worker (`pnpm start`), that worker is asked
 * on its local socket instead (local-erase-socket.ts): PGlite is single-process.
 */
export async function openStandaloneEraser(config: WorkerConfig, actor: string): Promise<Eraser> {
  // Refused before the CRM is opened (an embedded PGlite is this process's alone while open).
  const redis = createWorkerRedis(config.redis);
  try {
    if (config.erasureKey) await refuseDifferentErasureKey(redis, config, { record: false });
  } finally {
    redis.disconnect();
  }
  // The key is checked above, as for any erase here: an ERASURE_KEY that differs from the workers' is refused, not
  // passed over by asking a worker that holds the right one.
  const socket = localEraseSocket(config);
  if (usesEmbeddedPglite(config) && (await workerAnswersOn(socket)))
    return remoteEraser(socket, ERASE_ANSWER_TIMEOUT_MS);
  const logger = pino({ level: 'silent' });
  const crm = await openCrm(config, logger);
  const storage = config.storage ? createObjectStorage(config.storage, { maxAttempts: 3 }) : undefined;
  const eraser = openEraser({ config, crm, storage, actor });
  return {
    erase: eraser.erase,
    async close() {
      await eraser.close();
      await crm.close();
      storage?.close();
    },
  };
}

/**
 * Refuses (`EraseRefused`, naming ERASURE_KEY, never the secret) when this ERASURE_KEY differs from the one
 * recorded in Redis by the first worker or erase; with `record`, records it when none is.
 */
async function refuseDifferentErasureKey(
  redis: ReturnType<typeof createWorkerRedis>,
  config: WorkerConfig,
  { record }: { record: boolean },
): Promise<void> {
  const secrets = [config.erasureKey, config.erasureKeyPrevious].filter((key): key is string => Boolean(key));
  const agreement = await checkSharedSecret(redis, {
    key: sharedSecretKeys(config.redis, config.queueName, 'ERASURE_KEY').check,
    values: secrets.map((key) => secretCheckValue('ERASURE_KEY', key)),
    record,
  });
  if (agreement === 'differs')
    throw new EraseRefused(
      "ERASURE_KEY differs from the one the workers and earlier erases recorded in Redis: its tombstone would not be found by them, so nothing was erased; set ERASURE_KEY to the workers' secret (docs/privacy.md#erasure_key-is-shared)",
    );
}

/**
 * `pnpm start`: gateway and worker in one process on the embedded defaults, for a laptop or a demo.
 * Redis: REDIS_URL, else one already answering on 127.0.0.1:6379, else a `redis-server` started here with
 * infra/redis/redis.conf (noeviction, append-only file) and its data under DATA_DIR (default ./.data), so a
 * restart keeps acknowledged jobs. The CRM: DATABASE_URL, else PGlite under DATA_DIR. Object storage for
 * CVs: S3_BUCKET (with S3_ENDPOINT etc.), else a local S3-compatible server (s3rver) on 127.0.0.1:4568 (or a
 * free port) with its objects under DATA_DIR/s3, bucket `cvs`.
 * In production run apps/gateway and apps/worker as separate processes (docs/getting-started.md#in-production).
 */
import '@forms/runtime/require-supported-node';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig as loadGatewayConfig, startGateway } from '@forms/gateway';
import {
  hasRedisServerBinary,
  type LocalRedis,
  type LocalS3,
  redisAnswers,
  startLocalS3,
  startRedisServer,
} from '@forms/local-services';
import { createLogger } from '@forms/observability';
import { stopOnSignals } from '@forms/runtime';
import { parseEnv, redisSettings, SHARED_ENV_ENTRIES } from '@forms/schemas';
import { loadConfig as loadWorkerConfig, startWorker, writeLocalS3Settings } from '@forms/worker';
import * as v from 'valibot';

// Only what the launcher itself decides on; each app parses the whole environment again, strictly.
const env = parseEnv(
  v.object({ ...SHARED_ENV_ENTRIES, DATA_DIR: v.optional(v.string(), '.data'), S3_BUCKET: v.optional(v.string()) }),
  process.env,
);
const logger = createLogger({ level: env.LOG_LEVEL });
const dataDir = resolve(env.DATA_DIR);
const redisConf = fileURLToPath(new URL('../infra/redis/redis.conf', import.meta.url));

/** The env the apps get: unchanged when REDIS_URL or REDIS_CLUSTER_NODES chose a Redis, else a local one's URL. */
async function resolveRedis(): Promise<{ env: Record<string, string>; label: string; local?: LocalRedis }> {
  const settings = redisSettings(env);
  if (settings.mode === 'cluster')
    return { env: {}, label: `cluster ${settings.nodes.map((n) => `${n.host}:${n.port}`)}` };
  if (env.REDIS_URL) return { env: {}, label: settings.url };
  const standard = 'redis://127.0.0.1:6379';
  if (await redisAnswers(standard)) return { env: { REDIS_URL: standard }, label: standard };
  if (!hasRedisServerBinary()) {
    logger.fatal(
      'No Redis found: REDIS_URL is not set, nothing answers on 127.0.0.1:6379, and there is no redis-server binary. ' +
        'Install Redis (`bash scripts/setup.sh` does; Debian/Ubuntu: `sudo apt-get install redis-server`, macOS: `brew install redis`) or set REDIS_URL.',
    );
    process.exit(1);
  }
  const local = await startRedisServer({ dir: `${dataDir}/redis`, configFile: redisConf });
  logger.info({ url: local.url, dir: `${dataDir}/redis` }, 'started a local redis-server (infra/redis/redis.conf)');
  return { env: { REDIS_URL: local.url }, label: local.url, local };
}

/** S3 as configured, else an embedded S3-compatible server; its fixed credentials override any AWS_* set. */
async function resolveS3(): Promise<{ env: Record<string, string>; local?: LocalS3 }> {
  if (env.S3_BUCKET) return { env: {} };
  const dir = `${dataDir}/s3`;
  const local = await startLocalS3({ dir, port: 4568 }).catch(() => startLocalS3({ dir }));
  logger.info({ endpoint: local.endpoint, dir }, 'started a local S3-compatible server (s3rver) for CVs');
  const s3Env = {
    S3_ENDPOINT: local.endpoint,
    S3_BUCKET: 'cvs',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: local.accessKeyId,
    AWS_SECRET_ACCESS_KEY: local.secretAccessKey,
  };
  // For `ops erase` beside it, which reads the same DATA_DIR: without these it could not reach the CVs.
  writeLocalS3Settings(dataDir, s3Env);
  return { env: s3Env, local };
}

const redis = await resolveRedis();
const s3 = await resolveS3();
const shared = { ...process.env, ...redis.env, DATA_DIR: dataDir, ...s3.env };
const worker = await startWorker(loadWorkerConfig(shared), logger.child({ app: 'worker' }));
const gateway = await startGateway(loadGatewayConfig(shared), logger.child({ app: 'gateway' }));
logger.info(`listening on ${gateway.url} (redis ${redis.label}, crm ${worker.crm.name}); Ctrl-C to stop`);

// Gateway first (in-flight requests finish), then the worker (active jobs finish), then what we started.
stopOnSignals({
  logger,
  what: 'forms pipeline',
  deadlineMs: 30_000,
  async stop() {
    await gateway.stop();
    await worker.stop();
    await s3.local?.stop();
    await redis.local?.stop();
  },
});

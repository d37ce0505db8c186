/**
 * `pnpm start`: gateway and worker in one process on the embedded defaults, for a laptop or a demo.
 * Redis: REDIS_URL, else one already answering on 127.0.0.1:6379, else a `redis-server` started here with
 * its data under DATA_DIR (default ./.data). The CRM: DATABASE_URL, else PGlite under DATA_DIR.
 * Object storage for CVs: S3_BUCKET (with S3_ENDPOINT etc.), else a local S3-compatible server (s3rver) on
 * 127.0.0.1:4568 (or a free port) with its objects under DATA_DIR/s3, bucket `cvs`.
 * In production run apps/gateway and apps/worker as separate processes (see README).
 */
import { resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig as loadGatewayConfig, startGateway } from '@forms/gateway';
import { loadConfig as loadWorkerConfig, startWorker } from '@forms/worker';
import { hasRedisServerBinary, redisAnswers, startLocalS3, startRedisServer, type LocalRedis, type LocalS3 } from '@forms/local-services';

const env = process.env;
const logger = pino({ level: env.LOG_LEVEL ?? 'info' });
const dataDir = resolve(env.DATA_DIR ?? '.data');

async function resolveRedis(): Promise<{ url: string; local?: LocalRedis }> {
  if (env.REDIS_URL) return { url: env.REDIS_URL };
  const standard = 'redis://127.0.0.1:6379';
  if (await redisAnswers(standard)) return { url: standard };
  if (!hasRedisServerBinary()) {
    logger.fatal(
      'No Redis found: REDIS_URL is not set, nothing answers on 127.0.0.1:6379, and there is no redis-server binary. ' +
        'Install Redis (Debian/Ubuntu: `sudo apt-get install redis-server`, macOS: `brew install redis`) or set REDIS_URL.',
    );
    process.exit(1);
  }
  const local = await startRedisServer({ dir: `${dataDir}/redis` });
  logger.info({ url: local.url, dir: `${dataDir}/redis` }, 'started a local redis-server');
  return { url: local.url, local };
}

/** S3 as configured, else an embedded S3-compatible server; its fixed credentials override any AWS_* set. */
async function resolveS3(): Promise<{ env: Record<string, string>; local?: LocalS3 }> {
  if (env.S3_BUCKET) return { env: {} };
  const dir = `${dataDir}/s3`;
  const local = await startLocalS3({ dir, port: 4568 }).catch(() => startLocalS3({ dir }));
  logger.info({ endpoint: local.endpoint, dir }, 'started a local S3-compatible server (s3rver) for CVs');
  return {
    env: {
      S3_ENDPOINT: local.endpoint,
      S3_BUCKET: 'cvs',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: local.accessKeyId,
      AWS_SECRET_ACCESS_KEY: local.secretAccessKey,
    },
    local,
  };
}

const redis = await resolveRedis();
const s3 = await resolveS3();
const shared = { ...env, REDIS_URL: redis.url, DATA_DIR: dataDir, ...s3.env };
const worker = await startWorker(loadWorkerConfig(shared), logger.child({ app: 'worker' }));
const gateway = await startGateway(loadGatewayConfig(shared), logger.child({ app: 'gateway' }));
logger.info(`listening on ${gateway.url} (redis ${redis.url}, crm ${worker.crm.name}); Ctrl-C to stop`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: gateway first, then the worker finishes active jobs');
  setTimeout(() => process.exit(1), 30_000).unref();
  await gateway.stop();
  await worker.stop();
  await s3.local?.stop();
  await redis.local?.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

/**
 * `pnpm start`: gateway and worker in one process on the embedded defaults, for a laptop or a demo.
 * Redis: REDIS_URL, else one already answering on 127.0.0.1:6379, else a `redis-server` started here with
 * its data under DATA_DIR (default ./.data). The CRM: DATABASE_URL, else PGlite under DATA_DIR.
 * In production run apps/gateway and apps/worker as separate processes (see README).
 */
import { resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig as loadGatewayConfig, startGateway } from '@forms/gateway';
import { loadConfig as loadWorkerConfig, startWorker } from '@forms/worker';
import { hasRedisServerBinary, redisAnswers, startRedisServer, type LocalRedis } from '@forms/local-services';

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

const redis = await resolveRedis();
const shared = { ...env, REDIS_URL: redis.url, DATA_DIR: dataDir };
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
  await redis.local?.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

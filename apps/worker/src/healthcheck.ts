/**
 * The container health check (`node dist/healthcheck.js`): exits 0 when the worker's Redis answers PING
 * within 3 s, through the same configuration and client factory as the worker (one server or a cluster).
 */
import { loadConfig } from './config.ts';
import { createWorkerRedis } from './create-worker-redis.ts';

const redis = createWorkerRedis(loadConfig().redis);
redis.on('error', () => {});
const timer = setTimeout(() => process.exit(1), 3_000);
try {
  await redis.ping();
  clearTimeout(timer);
  process.exit(0);
} catch {
  process.exit(1);
}

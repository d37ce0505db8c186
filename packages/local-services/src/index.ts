export { freePort } from './free-port.ts';
export { hasRedisServerBinary, redisAnswers, startRedisServer, type LocalRedis } from './redis-server.ts';
export { startTestRedis, type TestRedis } from './test-redis.ts';

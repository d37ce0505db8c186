export { freePort } from './free-port.ts';
export { hasRedisServerBinary, redisAnswers, startRedisServer, type LocalRedis } from './redis-server.ts';
export { startTestRedis, type TestRedis } from './test-redis.ts';
export { startLocalS3, type LocalS3 } from './local-s3.ts';
export { startTestS3, type TestS3 } from './test-s3.ts';

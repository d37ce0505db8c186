export { freePort } from './free-port.ts';
export { type LocalS3, startLocalS3 } from './local-s3.ts';
export { hasRedisServerBinary, type LocalRedis, startRedisServer } from './redis-server.ts';
export { type LocalRedisCluster, startRedisCluster } from './start-redis-cluster.ts';
export { type LeftBehindRedis, stopLeftBehindRedis } from './stop-left-behind-redis.ts';
export { startTestRedis, type TestRedis } from './test-redis.ts';
export { startTestS3, type TestS3 } from './test-s3.ts';

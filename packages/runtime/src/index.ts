export { assertNoEviction, EvictionPolicyError } from './assert-no-eviction.ts';
export { stopOnSignals } from './stop-on-signals.ts';
export { waitForRedis } from './wait-for-redis.ts';

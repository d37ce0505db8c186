/**
 * The submissions wing: the site forms' user. One middleware for the eleven submission endpoints, and the
 * producer's Redis connection and queue that `startGateway` opens for it.
 */
export { type AbuseCounters, createAbuseCounters } from './abuse-counters.ts';
export { createProducerRedis, createSubmissionQueue, type ProducerRedis } from './queue.ts';
export { watchRedisOutage } from './redis-outage.ts';
export { submissionKeys } from './submission-keys.ts';
export { submissionRoutes } from './submission-routes.ts';

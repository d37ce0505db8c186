export { assertNoEviction, EvictionPolicyError } from './assert-no-eviction.ts';
export { boundUrl } from './bound-url.ts';
export { checkSharedSecret, type SecretCheck } from './check-shared-secret.ts';
export { exitProcess, quietWhenReaderCloses } from './exit-process.ts';
export { isRedisTransition } from './is-redis-transition.ts';
export { listenOn } from './listen-on.ts';
export {
  AUDIT_JOB_IDS_MAX,
  type OpsAction,
  type OpsActionOutcome,
  type RecordedOpsAction,
  recordOpsAction,
} from './record-ops-action.ts';
export { stopOnSignals } from './stop-on-signals.ts';
export { waitForRedis } from './wait-for-redis.ts';
export { type ConditionWatch, watchCondition } from './watch-condition.ts';
export { type SharedSecretWatch, watchSharedSecret } from './watch-shared-secret.ts';
export { createWriteBatcher, type WriteBatcher } from './write-batcher.ts';

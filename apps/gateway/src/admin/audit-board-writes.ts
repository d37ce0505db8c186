import { recordOpsAction } from '@forms/runtime';
import { AUDIT_MAX_ENTRIES } from '@forms/schemas';
import type { Cluster, Redis } from 'ioredis';
import type { Context, Next } from 'koa';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
// Bull Board's routes that act on one job (`/api/queues/:queueName/:jobId/<verb>`); the queue-wide ones end
// in a state or another word (`/retry/failed`, `/clean/completed`, `/rate-limit/release`).
const JOB_ROUTE =
  /\/api\/queues\/[^/]+\/([^/]+)\/(?:retry|clean|promote|update-data|delay|priority|remove-unprocessed-children)$/;

/**
 * With BULL_BOARD_WRITES on, Bull Board's buttons change jobs outside `pnpm ops`, so each write request
 * (any method but GET/HEAD/OPTIONS) is recorded in the ops audit trail like a CLI action: a `started` entry
 * before the board acts (no entry, no action: a Redis that cannot take it fails the request) and a
 * `completed` one with the answer's status after. What is kept is the method and the path (queue name, job
 * id, the button's verb), never the body (Bull Board's "add job" carries a submission's data).
 */
export function auditBoardWrites({ redis, key }: { redis: Redis | Cluster; key: string }) {
  return async function auditBoardWrites(ctx: Context, next: Next) {
    if (READS.has(ctx.method)) return next();
    const jobId = JOB_ROUTE.exec(ctx.path)?.[1];
    const audit = await recordOpsAction(
      redis,
      key,
      {
        actor: 'bull-board',
        action: `bull-board ${ctx.method}`,
        filter: { path: ctx.path, requestId: ctx.state.requestId },
        jobIds: jobId ? [decodeURIComponent(jobId)] : [],
      },
      { maxEntries: AUDIT_MAX_ENTRIES },
    );
    try {
      await next();
    } finally {
      const ok = ctx.status >= 200 && ctx.status < 300;
      await audit.complete({
        outcome: ok ? 'ok' : 'failed',
        count: ok && jobId ? 1 : 0,
        detail: { status: ctx.status },
      });
    }
  };
}

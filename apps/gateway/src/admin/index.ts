import Router from '@koa/router';
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Middleware } from 'koa';
import type { GatewayMetrics } from '../gateway-metrics.ts';
import { isAdminPath } from '../middleware/admin-path.ts';
import { auditBoardWrites } from './audit-board-writes.ts';
import { bullBoard } from './bull-board.ts';
import { refuseCrossSite } from './refuse-cross-site.ts';
import { requireAdminToken } from './require-admin-token.ts';
import { type SpamReviewDeps, spamReviewRoutes } from './spam-review.ts';
import { isSubmissionIdShape, submissionStatus } from './submission-status.ts';

export type AdminDeps = {
  token: string;
  /** ADMIN_TOKEN_PREVIOUS: accepted too during a rotation window. */
  previousToken?: string | undefined;
  queue: Queue;
  redis: Redis | Cluster;
  metrics: GatewayMetrics;
  timeoutMs: number;
  /** BULL_BOARD_WRITES: Bull Board's buttons on, each write recorded in the audit stream at `auditKey`. */
  boardWrites?: { auditKey: string } | undefined;
  /** /admin/spam: the quarantine's and the audit trail's keys, the filter's model, Akismet when on. */
  spamReview: Pick<SpamReviewDeps, 'keys' | 'akismet' | 'warn'>;
};

/**
 * The admin wing: ops' and support's user. Every route needs ADMIN_TOKEN; the app mounts the wing only
 * when one is configured, so without it /admin/* is a plain 404. Not in /openapi.json, no CORS.
 *
 * One guard in front of the whole wing, before any router looks at the path: every request whose path is
 * an admin path in any spelling (`isAdminPath`: case, doubled and trailing slashes, percent-escapes, dot
 * segments) passes the cross-site check and the token check, whichever route (or none) would then answer
 * it. The checks used to be a `router.use` on the prefixed router, which @koa/router matched
 * case-sensitively while the routes matched case-insensitively: `/ADMIN/metrics` went straight through.
 */
export function adminWing(deps: AdminDeps): Middleware {
  const routes = adminRouter(deps).routes();
  const crossSite = refuseCrossSite();
  const token = requireAdminToken([deps.token, deps.previousToken]);
  return async function adminWing(ctx, next) {
    if (!isAdminPath(ctx.path)) return next();
    return crossSite(ctx, () => token(ctx, () => routes(ctx as Parameters<typeof routes>[0], next)));
  };
}

/** The wing's routes, unguarded: mounted only through `adminWing`. */
function adminRouter({ queue, redis, metrics, timeoutMs, boardWrites, spamReview }: AdminDeps): Router {
  const router = new Router({ prefix: '/admin' });
  spamReviewRoutes(router, { ...spamReview, queue, redis, timeoutMs });

  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.text();
  });

  router.get('/submissions/:id', async (ctx) => {
    const id = ctx.params.id!;
    // Only the shapes our ids have: anything else (`meta`, `id`, a key name) would be looked up as a key.
    const submissions = isSubmissionIdShape(id) ? await submissionStatus({ queue, redis, timeoutMs }, id) : [];
    if (submissions.length === 0) {
      ctx.status = 404;
      ctx.body = { error: 'NOT_FOUND', message: `No submission found for ${id.slice(0, 64)}` };
      return;
    }
    ctx.body = { id, submissions };
  });

  const board = bullBoard(queue, { writes: Boolean(boardWrites) });
  const boardPaths = ['/queues', '/queues/{*rest}'];
  if (boardWrites) router.all(boardPaths, auditBoardWrites({ redis, key: boardWrites.auditKey }));
  router.all(boardPaths, (ctx, next) => board(ctx, next));
  return router;
}

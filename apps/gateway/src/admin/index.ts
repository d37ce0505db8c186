import Router from '@koa/router';
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { GatewayMetrics } from '../gateway-metrics.ts';
import { auditBoardWrites } from './audit-board-writes.ts';
import { bullBoard } from './bull-board.ts';
import { refuseCrossSite } from './refuse-cross-site.ts';
import { requireAdminToken } from './require-admin-token.ts';
import { submissionStatus } from './submission-status.ts';

export type AdminDeps = {
  token: string;
  queue: Queue;
  redis: Redis | Cluster;
  metrics: GatewayMetrics;
  timeoutMs: number;
  /** BULL_BOARD_WRITES: Bull Board's buttons on, each write recorded in the audit stream at `auditKey`. */
  boardWrites?: { auditKey: string } | undefined;
};

/**
 * The admin wing: ops' and support's user. Every route needs ADMIN_TOKEN; the app mounts this router only
 * when one is configured, so without it /admin/* is a plain 404. Not in /openapi.json, no CORS.
 */
export function adminRouter({ token, queue, redis, metrics, timeoutMs, boardWrites }: AdminDeps): Router {
  const router = new Router({ prefix: '/admin' });
  router.use(refuseCrossSite(), requireAdminToken(token));

  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.text();
  });

  router.get('/submissions/:id', async (ctx) => {
    const submissions = await submissionStatus({ queue, redis, timeoutMs }, ctx.params.id!);
    if (submissions.length === 0) {
      ctx.status = 404;
      ctx.body = { error: 'NOT_FOUND', message: `No submission found for ${ctx.params.id}` };
      return;
    }
    ctx.body = { id: ctx.params.id, submissions };
  });

  const board = bullBoard(queue, { writes: Boolean(boardWrites) });
  const boardPaths = ['/queues', '/queues/{*rest}'];
  if (boardWrites) router.all(boardPaths, auditBoardWrites({ redis, key: boardWrites.auditKey }));
  router.all(boardPaths, (ctx, next) => board(ctx, next));
  return router;
}

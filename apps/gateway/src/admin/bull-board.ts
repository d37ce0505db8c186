import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';

const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board for the submissions queue, served under /admin/queues (behind the admin wing's checks).
 * Read-only unless `writes` (BULL_BOARD_WRITES=true): its buttons (retry, remove, promote, clean, pause,
 * add) would change jobs with no audit entry and no replay priority, which `pnpm ops` gives. Read-only is
 * Bull Board's own `readOnlyMode`: the buttons are hidden and its API refuses writes (405).
 */
export function bullBoard(queue: Queue, { writes = false }: { writes?: boolean } = {}): Middleware {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(queue, { readOnlyMode: !writes })], serverAdapter });
  const board = serverAdapter.registerPlugin();
  // A path the board does not serve (GET /admin/queues/api/queues/<queue> is none of its routes) goes on to
  // the gateway's own not-found, outside the board: called inside it, the error thrown there was caught by
  // the board's error handler and answered 500 (test/integration/bull-board-queue-route-answers-500).
  return async function bullBoard(ctx, next) {
    let unanswered = false;
    await board(ctx, async () => {
      unanswered = true;
    });
    if (unanswered) await next();
  };
}

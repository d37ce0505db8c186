import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';

export const BULL_BOARD_PATH = '/admin/queues';

/** Bull Board for the submissions queue, served under /admin/queues (behind the admin wing's checks). */
export function bullBoard(queue: Queue): Middleware {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(queue)], serverAdapter });
  return serverAdapter.registerPlugin();
}

import type { Job, Queue } from 'bullmq';
import { type JobFilter, matchesFilter } from './job-filter.ts';

const PAGE = 500;

/**
 * Calls `visit` for each failed job that matches `filter`, newest failure first, reading a page at a
 * time so a failed set of any size never sits in memory whole. BullMQ keeps the failed set ordered by
 * failure time, so `--since` ends the read at the first older job. Returns how many matched.
 *
 * The set must not change underneath (pages are by position): commands that replay or remove collect ids
 * first, then act.
 */
export async function forEachFailedJob(queue: Queue, filter: JobFilter, visit: (job: Job) => void): Promise<number> {
  let matched = 0;
  const total = await queue.getFailedCount();
  for (let start = 0; start < total; start += PAGE) {
    const page = await queue.getFailed(start, start + PAGE - 1);
    if (page.length === 0) break;
    for (const job of page) {
      if (!job) continue; // removed between the count and the read
      if (filter.since !== undefined && (job.finishedOn ?? 0) < filter.since) return matched;
      if (!matchesFilter(job, filter)) continue;
      matched++;
      visit(job);
    }
  }
  return matched;
}

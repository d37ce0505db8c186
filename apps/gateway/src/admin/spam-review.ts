import { listHeld, markSubmissions, purgeHeld, type ReviewDeps, releaseHeld, revealHeld } from '@forms/quarantine';
import { SPAM_LAYERS, type SpamLayer } from '@forms/schemas';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../errors.ts';
import { readBody } from '../middleware/read-body.ts';
import { withRedisDeadline } from '../redis-deadline.ts';
import { AGE_WINDOWS, type AgeWindow, confirmPurgePage, listPage, revealPage } from './spam-review-pages.ts';

/** Rows a page shows: a page's reads are one ZCOUNT, one ZREVRANGEBYSCORE and two HMGETs of this many. */
const PAGE_ROWS = 50;
/** A form post of the page is a few ids (a page's worth at most): far below this. */
const FORM_LIMIT = 64 * 1024;
const ID = /^[\w-]{1,80}$/;
/** Who the audit trail names for the page's actions (docs/operations.md#audit-trail). */
const ADMIN_PAGE_ACTOR = 'admin-page';

export type SpamReviewDeps = Omit<ReviewDeps, 'actor' | 'warn'> & {
  timeoutMs: number;
  warn: (text: string) => void;
};

/**
 * /admin/spam: the quarantine reviewed in a browser (docs/operations.md#review-the-quarantine), behind the
 * wing's guard like every admin route. Every action is the quarantine package's, the one `ops spam` runs,
 * recorded in the audit trail with `admin-page` as its actor. A write comes as a form post (refused from
 * another site by the wing's guard) and is answered with a 303 back to the list, or with a page (the purge
 * confirmation, a reveal) that is never cached.
 */
export function spamReviewRoutes(router: Router, deps: SpamReviewDeps) {
  const review: ReviewDeps = { ...deps, actor: ADMIN_PAGE_ACTOR };
  const within = <T>(work: Promise<T>) => withRedisDeadline(work, deps.timeoutMs);

  router.get('/spam', async (ctx) => {
    const filter = readFilter(ctx);
    const offset = wholeNumber(ctx.query.offset, 'offset');
    const now = Date.now();
    const window = AGE_WINDOWS[filter.age];
    const found = await within(
      listHeld(deps.redis, deps.keys, {
        offset,
        limit: PAGE_ROWS,
        now,
        ...(window.minAgeMs !== undefined ? { minAgeMs: window.minAgeMs } : {}),
        ...(window.maxAgeMs !== undefined ? { maxAgeMs: window.maxAgeMs } : {}),
        ...(filter.layer ? { layer: filter.layer } : {}),
        ...(filter.reason ? { reason: filter.reason } : {}),
      }),
    );
    const notice = typeof ctx.query.notice === 'string' ? ctx.query.notice.slice(0, 200) : undefined;
    ctx.type = 'html';
    ctx.body = listPage({ ...found, offset, filter, notice, now });
  });

  router.post('/spam/actions', async (ctx) => {
    const form = await readForm(ctx);
    const act = form.get('act') ?? '';
    const [verb, one] = act.split(':', 2) as [string, string | undefined];
    const ids = one ? [one] : form.getAll('id');
    if (!['release', 'mark', 'purge', 'reveal'].includes(verb))
      throw new ApiError('INVALID_FIELD', { field: 'act', detail: 'must be release, mark, purge or reveal' });
    if (ids.length === 0 || ids.length > PAGE_ROWS || !ids.every((id) => ID.test(id)))
      throw new ApiError('INVALID_FIELD', {
        field: 'id',
        detail: `must name 1 to ${PAGE_ROWS} held submissions (check some, or use a row's own button)`,
      });
    if (verb === 'purge') {
      ctx.type = 'html';
      ctx.body = confirmPurgePage(ids);
      return;
    }
    if (verb === 'reveal') {
      const entry = await within(revealHeld(review, ids[0]!));
      if (!entry?.payload) return backToList(ctx, `${ids[0]} is no longer held.`);
      ctx.type = 'html';
      ctx.body = revealPage(entry);
      return;
    }
    if (verb === 'release') {
      const r = await within(releaseHeld(review, ids));
      return backToList(
        ctx,
        `Released ${r.released.length} (already released ${r.alreadyReleased.length}, not found ${r.missing.length}${Object.keys(r.malformed).length ? `, malformed ${Object.keys(r.malformed).length}` : ''}).`,
      );
    }
    const m = await within(markSubmissions(review, ids, 'spam'));
    return backToList(
      ctx,
      `Marked ${m.taught.length + m.already.length} as spam (taught now ${m.taught.length}); ${m.held.length} stay held, shown as reviewed${m.missing.length ? `; not found ${m.missing.length}` : ''}.`,
    );
  });

  router.post('/spam/purge', async (ctx) => {
    const form = await readForm(ctx);
    const ids = form.getAll('id');
    if (form.get('confirm') !== 'yes')
      throw new ApiError('INVALID_FIELD', { field: 'confirm', detail: 'must be yes (the confirmation page sends it)' });
    if (ids.length === 0 || ids.length > PAGE_ROWS || !ids.every((id) => ID.test(id)))
      throw new ApiError('INVALID_FIELD', { field: 'id', detail: `must name 1 to ${PAGE_ROWS} held submissions` });
    const removed = await within(purgeHeld(review, { ids }));
    return backToList(ctx, `Purged ${removed}.`);
  });
}

function backToList(ctx: Context, notice: string) {
  ctx.status = 303;
  ctx.redirect(`/admin/spam?${new URLSearchParams({ notice })}`);
}

async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded'))
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      detail: 'Send the form as application/x-www-form-urlencoded, as the page does',
    });
  return new URLSearchParams((await readBody(ctx.req, { limit: FORM_LIMIT })).toString('utf8'));
}

function readFilter(ctx: Context): { layer?: SpamLayer; reason?: string; age: AgeWindow } {
  const { layer, reason, age } = ctx.query;
  if (layer !== undefined && layer !== '' && !SPAM_LAYERS.includes(layer as SpamLayer))
    throw new ApiError('INVALID_FIELD', { field: 'layer', detail: `must be one of ${SPAM_LAYERS.join(', ')}` });
  if (age !== undefined && age !== '' && !(typeof age === 'string' && age in AGE_WINDOWS))
    throw new ApiError('INVALID_FIELD', {
      field: 'age',
      detail: `must be one of ${Object.keys(AGE_WINDOWS).join(', ')}`,
    });
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > 80))
    throw new ApiError('INVALID_FIELD', { field: 'reason', detail: 'must be one reason code, at most 80 characters' });
  return {
    ...(layer ? { layer: layer as SpamLayer } : {}),
    ...(reason ? { reason: reason.trim() } : {}),
    age: (age || 'any') as AgeWindow,
  };
}

function wholeNumber(value: unknown, field: string): number {
  if (value === undefined || value === '') return 0;
  if (typeof value !== 'string' || !/^\d{1,7}$/.test(value))
    throw new ApiError('INVALID_FIELD', { field, detail: 'must be a whole number' });
  return Number(value);
}

import { postForm } from './post-form.ts';

export type AkismetSettings = Readonly<{
  apiKey: string;
  /** The site's front page, as registered with Akismet (`blog`). */
  blog: string;
  /** https://rest.akismet.com, or a local server in tests. */
  endpoint: string;
  timeoutMs: number;
}>;

/** What Akismet is told about one submission (its `comment-check`, `submit-spam`, `submit-ham` parameters). */
export type AkismetComment = {
  ip: string;
  userAgent?: string | undefined;
  email: string;
  content: string;
};

export type AkismetOutcome = { spam: boolean; discard: boolean } | { unavailable: string };

/**
 * One call to Akismet's REST API (`/1.1/comment-check`, `submit-spam` or `submit-ham`): a form-encoded POST of
 * `api_key`, `blog`, `user_ip`, `user_agent`, `comment_type=contact-form`, `comment_author_email` and
 * `comment_content`, bounded by `timeoutMs`. comment-check answers `true` (spam; with `X-akismet-pro-tip:
 * discard` for the worst) or `false`; anything else (`invalid` for a bad key, an error status, a timeout) is
 * unavailable, and the layer abstains.
 */
export async function akismetCall(
  settings: AkismetSettings,
  method: 'comment-check' | 'submit-spam' | 'submit-ham',
  comment: AkismetComment,
): Promise<AkismetOutcome> {
  const form = new URLSearchParams({
    api_key: settings.apiKey,
    blog: settings.blog,
    user_ip: comment.ip,
    comment_type: 'contact-form',
    comment_author_email: comment.email,
    comment_content: comment.content,
  });
  if (comment.userAgent) form.set('user_agent', comment.userAgent);
  const res = await postForm(`${settings.endpoint.replace(/\/$/, '')}/1.1/${method}`, form, settings.timeoutMs);
  if ('unavailable' in res) return res;
  const body = res.text.trim();
  if (method !== 'comment-check')
    return body.startsWith('Thanks') ? { spam: false, discard: false } : { unavailable: body.slice(0, 40) };
  if (body === 'true') return { spam: true, discard: res.headers.get('x-akismet-pro-tip') === 'discard' };
  if (body === 'false') return { spam: false, discard: false };
  return { unavailable: body === 'invalid' ? 'invalid-key' : 'bad-answer' };
}

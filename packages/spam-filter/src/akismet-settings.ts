import * as v from 'valibot';
import type { AkismetSettings } from './akismet-call.ts';

/** The Akismet variables, read by the gateway (comment-check) and the ops CLI (submit-spam, submit-ham). */
export const AKISMET_ENV_ENTRIES = {
  AKISMET_API_KEY: v.optional(v.string()),
  AKISMET_BLOG: v.optional(v.pipe(v.string(), v.url('must be a URL'))),
  AKISMET_ENDPOINT_URL: v.optional(v.pipe(v.string(), v.url('must be a URL')), 'https://rest.akismet.com'),
  AKISMET_TIMEOUT_MS: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9]\d*$/, 'must be a positive whole number'), v.transform(Number)),
    '2000',
  ),
};

/** Akismet's settings, when AKISMET_API_KEY is set (the layer is off without it); `blog` defaults to the site's base URL. */
export function akismetSettings(
  e: {
    AKISMET_API_KEY?: string | undefined;
    AKISMET_BLOG?: string | undefined;
    AKISMET_ENDPOINT_URL: string;
    AKISMET_TIMEOUT_MS: number;
  },
  defaultBlog: string,
): AkismetSettings | undefined {
  if (!e.AKISMET_API_KEY) return undefined;
  return Object.freeze({
    apiKey: e.AKISMET_API_KEY,
    blog: e.AKISMET_BLOG ?? defaultBlog,
    endpoint: e.AKISMET_ENDPOINT_URL,
    timeoutMs: e.AKISMET_TIMEOUT_MS,
  });
}

import * as v from 'valibot';
import { DEFAULT_QUEUE_NAME, parseEnv } from '@forms/schemas';
import { S3_ENV_ENTRIES, storageSettings, type StorageSettings } from '@forms/object-storage';

const port = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a port number'), v.transform(Number), v.integer(), v.maxValue(65535));
const positiveMs = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number of milliseconds'), v.transform(Number), v.minValue(1));
const url = v.pipe(v.string(), v.url('must be a URL'));

const EnvSchema = v.object({
  ...S3_ENV_ENTRIES,
  PORT: v.optional(port, '3000'),
  HOST: v.optional(v.string(), '0.0.0.0'),
  PUBLIC_BASE_URL: v.optional(url),
  CONTACT_EMAIL: v.optional(v.pipe(v.string(), v.email('must be an email address')), 'hello@example.com'),
  REDIS_URL: v.optional(url, 'redis://127.0.0.1:6379'),
  QUEUE_NAME: v.optional(v.pipe(v.string(), v.regex(/^[\w-]+$/, 'letters, digits, _ and - only')), DEFAULT_QUEUE_NAME),
  ENQUEUE_TIMEOUT_MS: v.optional(positiveMs, '1000'),
  AIRTABLE_BASE_ID: v.optional(v.string()),
  DATABASE_URL: v.optional(url),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  TRUST_PROXY: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false'),
  AGENCY_NAME: v.optional(v.pipe(v.string(), v.maxLength(100)), 'Creator-led marketing agency'),
  YOUTUBE_CHANNEL_ID: v.optional(v.pipe(v.string(), v.regex(/^UC[\w-]{22}$/, 'must be a channel id such as UCxxxxxxxxxxxxxxxxxxxxxx'))),
  VIDEO_FEED_URL: v.optional(url),
  PRICING_FEE_PER_CREATOR: v.optional(v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, 'must be a number'), v.transform(Number))),
  PRICING_REVENUE_SHARE_PERCENT: v.optional(
    v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, 'must be a number'), v.transform(Number), v.maxValue(100)),
  ),
  PRICING_CURRENCY: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')), 'USD'),
});

export type GatewayConfig = Readonly<{
  port: number;
  host: string;
  publicBaseUrl: string;
  contactEmail: string;
  redisUrl: string;
  queueName: string;
  enqueueTimeoutMs: number;
  /** What `debug.baseId` reports: the Airtable base, else which Postgres the worker writes to. */
  crmBaseId: string;
  logLevel: string;
  /** Behind a load balancer: take the client's address and protocol from X-Forwarded-* headers. */
  trustProxy: boolean;
  /** Where checked CVs are staged for the worker; none when S3_BUCKET is unset (CVs then answer cvUploadFailed). */
  storage: StorageSettings | undefined;
  /** The name the discovery files, MCP server and widgets use. */
  agencyName: string;
  /** The Atom feed /api/latest-video reads: VIDEO_FEED_URL, else the channel's public feed; none when neither is set. */
  videoFeedUrl: string | undefined;
  /** Published rates; the pricing tools and widget exist only when both are set (we publish no invented figures). */
  pricing: Readonly<{ feePerCreator: number; revenueSharePercent: number; currency: string }> | undefined;
}>;

/** Parses the environment once; a bad value throws an error naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const e = parseEnv(EnvSchema, env);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    contactEmail: e.CONTACT_EMAIL,
    redisUrl: e.REDIS_URL,
    queueName: e.QUEUE_NAME,
    enqueueTimeoutMs: e.ENQUEUE_TIMEOUT_MS,
    crmBaseId: e.AIRTABLE_BASE_ID ?? (e.DATABASE_URL ? 'postgres' : 'pglite'),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY === 'true',
    storage: storageSettings(e),
    agencyName: e.AGENCY_NAME,
    videoFeedUrl:
      e.VIDEO_FEED_URL ??
      (e.YOUTUBE_CHANNEL_ID ? `https://www.youtube.com/feeds/videos.xml?channel_id=${e.YOUTUBE_CHANNEL_ID}` : undefined),
    pricing:
      e.PRICING_FEE_PER_CREATOR !== undefined && e.PRICING_REVENUE_SHARE_PERCENT !== undefined
        ? Object.freeze({ feePerCreator: e.PRICING_FEE_PER_CREATOR, revenueSharePercent: e.PRICING_REVENUE_SHARE_PERCENT, currency: e.PRICING_CURRENCY })
        : undefined,
  });
}

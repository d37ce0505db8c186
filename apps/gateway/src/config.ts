import { availableParallelism } from 'node:os';
import { S3_ENV_ENTRIES, type StorageSettings, storageSettings } from '@forms/object-storage';
import {
  adminTokens,
  CHALLENGE_TOKEN_FIELDS,
  type ChallengeProvider,
  envAdminToken,
  envAirtableBaseId,
  envChallengeProvider,
  envInt,
  envPort,
  parseEnv,
  type RedisSettings,
  SHARED_ENV_ENTRIES,
  SUBMISSION_KINDS,
  type SubmissionKind,
  sharedSettings,
} from '@forms/schemas';
import { loadSpamRules } from '@forms/spam-filter';
import * as v from 'valibot';

const url = v.pipe(v.string(), v.url('must be a URL'));
const wholeNumber = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number));

const EnvSchema = v.object({
  ...S3_ENV_ENTRIES,
  PORT: v.optional(envPort, '3000'),
  HOST: v.optional(v.string(), '0.0.0.0'),
  PUBLIC_BASE_URL: v.optional(url),
  CONTACT_EMAIL: v.optional(v.pipe(v.string(), v.email('must be an email address')), 'hello@example.com'),
  ...SHARED_ENV_ENTRIES,
  REDIS_ACK_REPLICAS: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number of replicas'), v.transform(Number)),
    '0',
  ),
  ADMIN_TOKEN: envAdminToken,
  ADMIN_TOKEN_PREVIOUS: envAdminToken,
  ENQUEUE_TIMEOUT_MS: v.optional(envInt, '1000'),
  REDIS_HOLD_MS: v.optional(wholeNumber, '10000'),
  REDIS_HOLD_MAX_REQUESTS: v.optional(envInt, '2000'),
  REDIS_HOLD_MAX_BYTES: v.optional(envInt, '16777216'),
  CV_UPLOAD_SLOTS: v.optional(envInt, '4'),
  CV_UPLOAD_SLOTS_PER_CLIENT: v.optional(envInt, '1'),
  CV_UPLOAD_TIMEOUT_MS: v.optional(envInt, '60000'),
  CV_UPLOAD_MIN_BYTES_PER_SECOND: v.optional(wholeNumber, '8192'),
  GATEWAY_PROCESSES: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(auto|\d+)$/, 'must be a whole number of processes or auto'),
      v.transform((value) => (value === 'auto' ? availableParallelism() : Number(value))),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(64, 'must be at most 64'),
    ),
    '1',
  ),
  FORM_REDIRECT_URLS: v.optional(
    v.pipe(
      v.string(),
      v.transform((value) =>
        value
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean),
      ),
      v.array(
        v.pipe(
          v.string(),
          v.url('must be a comma-separated list of URLs'),
          v.regex(/^https?:\/\//i, 'must list http or https URLs'),
        ),
      ),
    ),
    '',
  ),
  RATE_LIMIT_REQUESTS: v.optional(wholeNumber, '600'),
  RATE_LIMIT_WINDOW_SECONDS: v.optional(envInt, '60'),
  CONTACT_INDEX_TTL_DAYS: v.optional(envInt, '400'),
  ID_KEY: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  // `production` makes ID_KEY required: ids derived without a secret can be tested against a guessed email.
  NODE_ENV: v.optional(v.string()),
  QUARANTINE_DAYS: v.optional(envInt, '30'),
  QUARANTINE_MAX: v.optional(envInt, '10000'),
  // Read by the worker's judge too; the gateway reads only which forms require a challenge, and whose.
  SPAM_RULES_FILE: v.optional(v.string()),
  CHALLENGE_PROVIDER: envChallengeProvider,
  BULL_BOARD_WRITES: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false'),
  AIRTABLE_BASE_ID: envAirtableBaseId,
  DATABASE_URL: v.optional(url),
  TRUST_PROXY: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(true|false|\d{1,2})$/, 'must be true, false or a number of trusted proxy hops'),
      v.transform((value) => (value === 'true' ? 1 : value === 'false' ? 0 : Number(value))),
    ),
    'false',
  ),
  AGENCY_NAME: v.optional(v.pipe(v.string(), v.maxLength(100)), 'Creator-led marketing agency'),
  YOUTUBE_CHANNEL_ID: v.optional(
    v.pipe(v.string(), v.regex(/^UC[\w-]{22}$/, 'must be a channel id such as UCxxxxxxxxxxxxxxxxxxxxxx')),
  ),
  VIDEO_FEED_URL: v.optional(url),
  PRICING_FEE_PER_CREATOR: v.optional(
    v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, 'must be a number'), v.transform(Number)),
  ),
  PRICING_REVENUE_SHARE_PERCENT: v.optional(
    v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, 'must be a number'), v.transform(Number), v.maxValue(100)),
  ),
  PRICING_CURRENCY: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')),
    'USD',
  ),
});

export type GatewayConfig = Readonly<{
  port: number;
  host: string;
  publicBaseUrl: string;
  contactEmail: string;
  /** A single Redis or a cluster, and the queue's key prefix (hash-tagged on a cluster). */
  redis: RedisSettings;
  queueName: string;
  /** REDIS_ALLOW_EVICTION=true: start even when Redis's maxmemory-policy is not noeviction. */
  allowEviction: boolean;
  enqueueTimeoutMs: number;
  /**
   * A Redis transition (failover, restart, slot move) ridden through inside the request: how long a
   * submission is held and retried before its 503 (0: never, the 503 at once), and how many requests and
   * bytes one gateway holds at most (past them, the 503 at once). submissions/transition-hold.ts.
   */
  hold: Readonly<{ ms: number; maxRequests: number; maxBytes: number }>;
  /** Careers requests that may carry a CV, in flight at once; past it a 503 CV_UPLOADS_BUSY (memory bound). */
  cvUploadSlots: number;
  /** Of those, how many one client address may hold at once (past it, the same 503). */
  cvUploadSlotsPerClient: number;
  /**
   * How a careers body must arrive, or be cut with 408 BODY_TIMEOUT and its slot freed: whole within
   * `timeoutMs`, and at least `minBytesPerSecond` over every window of a few seconds (0: no minimum).
   */
  cvUploadPace: Readonly<{ timeoutMs: number; minBytesPerSecond: number }>;
  /**
   * Gateway processes sharing the port (node:cluster); 1 runs the gateway in this process alone. `auto` is
   * one per core the machine offers.
   */
  processes: number;
  /**
   * Replicas that must hold a job's write before the answer is 200 (Redis WAIT); 0 answers once the master
   * has it. With more, a master lost right after answering cannot take the job with it.
   */
  ackReplicas: number;
  /**
   * Where a plain form's post may be redirected (its `_next` and `_error` fields): pages, or whole sites as
   * an entry ending in `/` (redirectAllowlist). Empty: plain forms get the gateway's own pages.
   */
  formRedirectUrls: readonly string[];
  /** Submissions per client address per window, shared by every gateway through Redis; 0 turns it off. */
  rateLimit: Readonly<{ requests: number; windowSeconds: number }>;
  /** How long an email's contact id outlives its last use (renewed by every submission for it). */
  contactIndexTtlSeconds: number;
  /**
   * ID_KEY: the HMAC secret contact ids (from the email) and keyed submission ids (from the Idempotency-Key
   * and body) are derived with; empty when unset (the ids are still derived, but not keyed).
   */
  idKey: string;
  /** Submissions with the honeypot filled, kept for `ops spam`: how long, and how many at most (oldest dropped first). */
  quarantine: Readonly<{ maxAgeMs: number; maxCount: number }>;
  /**
   * The forms whose challenge is `required` (SPAM_RULES_FILE) and the field their provider's token comes in
   * (CHALLENGE_PROVIDER): a plain form post to one without a token is told it waits for review
   * (plain-form-challenge.ts). The judge itself is the worker's.
   */
  requiredChallenge: Readonly<{ kinds: ReadonlySet<SubmissionKind>; tokenField: string }> | undefined;
  /** BULL_BOARD_WRITES=true: Bull Board's buttons work (each write audited); else it is read-only. */
  bullBoardWrites: boolean;
  /** What `debug.baseId` reports: the Airtable base, else which Postgres the worker writes to. */
  crmBaseId: string;
  /** The Airtable base, when the worker writes to one: /readyz reports whether it is paused. */
  airtableBaseId: string | undefined;
  logLevel: string;
  /** The admin surface's bearer token; none means /admin/* does not exist (404). */
  adminToken: string | undefined;
  /** ADMIN_TOKEN_PREVIOUS: accepted too during a rotation window, so clients move over without a 401. */
  adminTokenPrevious: string | undefined;
  /**
   * Proxies in front of the gateway that append to X-Forwarded-For (TRUST_PROXY: `true` is 1, `false` 0).
   * With n > 0 the client's address is the n-th from the right of that header (what the outermost trusted
   * proxy saw; anything to its left the client wrote itself), and the protocol comes from X-Forwarded-Proto.
   */
  trustedProxyHops: number;
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
  if (e.NODE_ENV === 'production' && !e.ID_KEY)
    throw new Error(
      'Invalid configuration: ID_KEY is not set and NODE_ENV is production: set ID_KEY to the secret every gateway shares (32+ characters; docs/configuration.md#shared-secrets)',
    );
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    contactEmail: e.CONTACT_EMAIL,
    ...sharedSettings(e),
    enqueueTimeoutMs: e.ENQUEUE_TIMEOUT_MS,
    hold: Object.freeze({
      ms: e.REDIS_HOLD_MS,
      maxRequests: e.REDIS_HOLD_MAX_REQUESTS,
      maxBytes: e.REDIS_HOLD_MAX_BYTES,
    }),
    cvUploadSlots: e.CV_UPLOAD_SLOTS,
    cvUploadSlotsPerClient: e.CV_UPLOAD_SLOTS_PER_CLIENT,
    cvUploadPace: Object.freeze({
      timeoutMs: e.CV_UPLOAD_TIMEOUT_MS,
      minBytesPerSecond: e.CV_UPLOAD_MIN_BYTES_PER_SECOND,
    }),
    processes: e.GATEWAY_PROCESSES,
    ackReplicas: e.REDIS_ACK_REPLICAS,
    formRedirectUrls: Object.freeze(e.FORM_REDIRECT_URLS),
    rateLimit: Object.freeze({ requests: e.RATE_LIMIT_REQUESTS, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS }),
    contactIndexTtlSeconds: e.CONTACT_INDEX_TTL_DAYS * 86_400,
    idKey: e.ID_KEY ?? '',
    quarantine: Object.freeze({ maxAgeMs: e.QUARANTINE_DAYS * 86_400_000, maxCount: e.QUARANTINE_MAX }),
    requiredChallenge: requiredChallenge(e.SPAM_RULES_FILE, e.CHALLENGE_PROVIDER),
    bullBoardWrites: e.BULL_BOARD_WRITES === 'true',
    crmBaseId: e.AIRTABLE_BASE_ID ?? (e.DATABASE_URL ? 'postgres' : 'pglite'),
    airtableBaseId: e.AIRTABLE_BASE_ID,
    ...adminTokens(e),
    trustedProxyHops: e.TRUST_PROXY,
    storage: storageSettings(e),
    agencyName: e.AGENCY_NAME,
    videoFeedUrl:
      e.VIDEO_FEED_URL ??
      (e.YOUTUBE_CHANNEL_ID
        ? `https://www.youtube.com/feeds/videos.xml?channel_id=${e.YOUTUBE_CHANNEL_ID}`
        : undefined),
    pricing:
      e.PRICING_FEE_PER_CREATOR !== undefined && e.PRICING_REVENUE_SHARE_PERCENT !== undefined
        ? Object.freeze({
            feePerCreator: e.PRICING_FEE_PER_CREATOR,
            revenueSharePercent: e.PRICING_REVENUE_SHARE_PERCENT,
            currency: e.PRICING_CURRENCY,
          })
        : undefined,
  });
}

function requiredChallenge(
  rulesFile: string | undefined,
  provider: ChallengeProvider | undefined,
): GatewayConfig['requiredChallenge'] {
  if (!provider) return undefined;
  const rules = loadSpamRules(rulesFile);
  const kinds = new Set(SUBMISSION_KINDS.filter((kind) => rules[kind].challenge === 'required'));
  return kinds.size ? Object.freeze({ kinds, tokenField: CHALLENGE_TOKEN_FIELDS[provider] }) : undefined;
}

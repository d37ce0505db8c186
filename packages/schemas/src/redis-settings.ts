import * as v from 'valibot';
import { parseEnv } from './env.ts';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * BullMQ's own default prefix. A single Redis keeps it, so a deployment from before cluster support finds
 * the jobs it already queued (a new prefix would orphan them). A cluster has no such past and needs a hash
 * tag: every key of a queue must live in one slot, because BullMQ's scripts touch several at once.
 */
const SINGLE_NODE_PREFIX = 'bull';
const CLUSTER_PREFIX = '{forms}';

const HASH_TAG = /\{[^{}]+\}/;

/** `host:port` or a redis:// / rediss:// URL (credentials and TLS are read from the first entry). */
const clusterNodes = v.pipe(
  v.string(),
  v.transform((list) => list.split(',').map((entry) => entry.trim())),
  v.check(
    (entries) => entries.every((entry) => parseNode(entry) !== undefined),
    'must be a comma-separated list of host:port (or redis:// / rediss:// URLs)',
  ),
);

/**
 * The Redis variables both apps (and the `pnpm start` launcher) read, as valibot entries to spread into
 * each app's environment schema, so the cluster is chosen by one rule.
 */
export const REDIS_ENV_ENTRIES = {
  REDIS_URL: v.optional(v.pipe(v.string(), v.url('must be a URL such as redis://127.0.0.1:6379'))),
  REDIS_CLUSTER_NODES: v.optional(clusterNodes),
  QUEUE_PREFIX: v.optional(v.pipe(v.string(), v.regex(/^[\w:{}-]+$/, 'letters, digits, _ - : { } only'))),
};

type RedisEnv = { REDIS_URL?: string | undefined; REDIS_CLUSTER_NODES?: string[] | undefined; QUEUE_PREFIX?: string };

export type ClusterNode = Readonly<{ host: string; port: number }>;

export type RedisSettings = Readonly<
  | { mode: 'single'; url: string; prefix: string }
  | {
      mode: 'cluster';
      /** Seed nodes; the client discovers the rest from them. */
      nodes: readonly ClusterNode[];
      username: string | undefined;
      password: string | undefined;
      tls: boolean;
      /** Always holds a hash tag such as `{forms}`: the slot of every key of the queue and of our own keys. */
      prefix: string;
    }
>;

/**
 * What every connection to a cluster's nodes carries from the settings (ioredis' `redisOptions`): the
 * credentials and TLS. The apps' own Cluster clients differ in how they retry, not in this.
 */
export function clusterNodeOptions(settings: Extract<RedisSettings, { mode: 'cluster' }>) {
  return { username: settings.username, password: settings.password, tls: settings.tls ? {} : undefined };
}

/**
 * Single Redis at REDIS_URL, or a Redis Cluster when REDIS_CLUSTER_NODES is set (setting both is an error:
 * one of them would be ignored). QUEUE_PREFIX defaults to `bull` on a single Redis and `{forms}` on a
 * cluster, where a prefix without a hash tag is refused.
 */
export function redisSettings(e: RedisEnv): RedisSettings {
  if (!e.REDIS_CLUSTER_NODES) {
    return Object.freeze({
      mode: 'single',
      url: e.REDIS_URL ?? DEFAULT_REDIS_URL,
      prefix: e.QUEUE_PREFIX ?? SINGLE_NODE_PREFIX,
    });
  }
  if (e.REDIS_URL) {
    throw new Error('Invalid configuration: REDIS_URL and REDIS_CLUSTER_NODES are both set; set one of them');
  }
  const prefix = e.QUEUE_PREFIX ?? CLUSTER_PREFIX;
  if (!HASH_TAG.test(prefix)) {
    throw new Error(
      `Invalid configuration: QUEUE_PREFIX must hold a hash tag such as {forms} on a Redis Cluster (BullMQ needs every key of a queue in one slot)`,
    );
  }
  const urls = e.REDIS_CLUSTER_NODES.map((entry) => parseNode(entry)!);
  const first = urls[0]!;
  return Object.freeze({
    mode: 'cluster',
    nodes: Object.freeze(
      urls.map((u) => Object.freeze({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) })),
    ),
    username: first.username ? decodeURIComponent(first.username) : undefined,
    password: first.password ? decodeURIComponent(first.password) : undefined,
    tls: first.protocol === 'rediss:',
    prefix,
  });
}

/**
 * A key beside the queue's own: `<prefix>:<queue>:<parts…>`, as BullMQ names its keys. Keys we own are
 * built here so they share the queue's hash tag and slot: a script may touch both, and one WAIT on the
 * queue's node covers both writes. Parts must never carry PII (hash an email first).
 */
export function queueKey(settings: Pick<RedisSettings, 'prefix'>, queueName: string, ...parts: string[]): string {
  return [settings.prefix, queueName, ...parts].join(':');
}

/** The Redis variables alone, parsed by the same rules: for the `pnpm start` launcher, which runs both apps. */
export function readRedisSettings(env: Record<string, string | undefined>): RedisSettings {
  return redisSettings(parseEnv(v.object(REDIS_ENV_ENTRIES), env));
}

function parseNode(entry: string): URL | undefined {
  try {
    const url = new URL(/^\w+:\/\//.test(entry) ? entry : `redis://${entry}`);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname ? url : undefined;
  } catch {
    return undefined;
  }
}

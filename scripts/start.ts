/**
 * `pnpm start`: gateway and worker in one process on the embedded defaults, for a laptop or a demo.
 * Local by default: the gateway and the worker's admin port listen on 127.0.0.1 unless HOST / METRICS_HOST
 * say otherwise. Redis: REDIS_URL (or REDIS_CLUSTER_NODES), else a `redis-server` started here with
 * infra/redis/redis.conf (noeviction, append-only file) and its data under DATA_DIR (default ./.data), so a
 * restart keeps acknowledged jobs; never a Redis that happens to answer on 6379, whose keys (under the same
 * prefix) may be another deployment's. The CRM: DATABASE_URL, else PGlite under DATA_DIR. Object storage
 * for CVs: S3_BUCKET (with S3_ENDPOINT etc.), else a local S3-compatible server (s3rver) on 127.0.0.1:4568
 * (or a free port) with its objects under DATA_DIR/s3, bucket `cvs`. ERASURE_KEY: as set, else a secret
 * made once and kept in DATA_DIR/erasure-key. With OTEL_EXPORTER_OTLP_ENDPOINT set it traces, as the apps do.
 * In production run apps/gateway and apps/worker as separate processes (docs/getting-started.md#in-production).
 */
import '@forms/runtime/require-supported-node';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTracing } from '@forms/observability';

// Tracing starts before the apps' modules load, as in each app's main (the HTTP instrumentation must be in
// place before the S3 client takes node:http); with no OTLP endpoint set it loads nothing.
const tracing = await startTracing({ serviceName: 'forms-pipeline' }, process.env);
const { loadConfig: loadGatewayConfig, startGateway } = await import('@forms/gateway');
const { hasRedisServerBinary, startLocalS3, startRedisServer, stopLeftBehindRedis } = await import(
  '@forms/local-services'
);
type LocalRedis = import('@forms/local-services').LocalRedis;
type LocalS3 = import('@forms/local-services').LocalS3;
const { createLogger } = await import('@forms/observability');
const { exitProcess, stopOnSignals } = await import('@forms/runtime');
const { parseEnv, redisSettings, SHARED_ENV_ENTRIES } = await import('@forms/schemas');
const {
  loadConfig: loadWorkerConfig,
  lockDataDir,
  readLocalSettings,
  startWorker,
  writeLocalSettings,
} = await import('@forms/worker');
const v = await import('valibot');

// Only what the launcher itself decides on; each app parses the whole environment again, strictly. A bad
// value here stops it in one line, before anything starts.
const env = readLauncherEnv() ?? (await exitProcess(1));
/** The launcher's settings; undefined once it has said which is wrong. */
function readLauncherEnv() {
  try {
    return parseEnv(
      v.object({
        ...SHARED_ENV_ENTRIES,
        DATA_DIR: v.optional(v.string(), '.data'),
        S3_BUCKET: v.optional(v.string()),
        HOST: v.optional(v.string(), '127.0.0.1'),
        METRICS_HOST: v.optional(v.string(), '127.0.0.1'),
        ERASURE_KEY: v.optional(v.string()),
        ID_KEY: v.optional(v.string()),
      }),
      process.env,
    );
  } catch (err) {
    createLogger({ level: 'info' }).fatal((err as Error).message);
    return undefined;
  }
}
const logger = createLogger({ level: env.LOG_LEVEL });
const dataDir = resolve(env.DATA_DIR);
const redisConf = fileURLToPath(new URL('../infra/redis/redis.conf', import.meta.url));

/**
 * The env the apps get: unchanged when REDIS_URL or REDIS_CLUSTER_NODES chose a Redis, else the URL of one
 * started here for this DATA_DIR alone (a Redis found on 6379 may hold another deployment's keys).
 */
async function resolveRedis(): Promise<{ env: Record<string, string>; label: string; local?: LocalRedis }> {
  const settings = redisSettings(env);
  if (settings.mode === 'cluster')
    return { env: {}, label: `cluster ${settings.nodes.map((n) => `${n.host}:${n.port}`)}` };
  if (env.REDIS_URL) return { env: {}, label: settings.url };
  if (!hasRedisServerBinary())
    throw new Error(
      'No Redis: REDIS_URL is not set and there is no redis-server binary to start a local one. ' +
        'Install Redis (`bash scripts/setup.sh` does; Debian/Ubuntu: `sudo apt-get install redis-server`, macOS: `brew install redis`) or set REDIS_URL.',
    );
  const dir = `${dataDir}/redis`;
  // Never a second Redis on these files: one an earlier start left running (it was killed before it could
  // stop it) is shut down first. This start holds DATA_DIR's lock, so that Redis is no live start's.
  const earlier = readLocalSettings(dataDir)?.settings.REDIS_URL;
  const leftBehind = await stopLeftBehindRedis(dir, { alsoTry: earlier ? [earlier] : [] });
  if (leftBehind)
    logger.warn(
      { url: leftBehind.url, dir },
      `stopped the redis-server (pid ${leftBehind.pid}) an earlier start left running on this data folder`,
    );
  const local = await startRedisServer({ dir, configFile: redisConf });
  logger.info({ url: local.url, dir }, 'started a local redis-server (infra/redis/redis.conf)');
  return { env: { REDIS_URL: local.url }, label: local.url, local };
}

/** S3 as configured, else an embedded S3-compatible server; its fixed credentials override any AWS_* set. */
async function resolveS3(): Promise<{ env: Record<string, string>; local?: LocalS3 }> {
  if (env.S3_BUCKET) return { env: {} };
  const dir = `${dataDir}/s3`;
  const local = await startLocalS3({ dir, port: 4568 }).catch(() => startLocalS3({ dir }));
  logger.info({ endpoint: local.endpoint, dir }, 'started a local S3-compatible server (s3rver) for CVs');
  const s3Env = {
    S3_ENDPOINT: local.endpoint,
    S3_BUCKET: 'cvs',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: local.accessKeyId,
    AWS_SECRET_ACCESS_KEY: local.secretAccessKey,
  };
  return { env: s3Env, local };
}

/**
 * A secret as set, else one made once and kept in DATA_DIR/<file> (owner-only), like the data: ERASURE_KEY
 * (tombstone names) and ID_KEY (ids derived from emails and Idempotency-Keys) must not change between
 * starts, and an unset ID_KEY would make contact ids testable against a guessed email.
 */
function resolveLocalKey(name: 'ERASURE_KEY' | 'ID_KEY', file: string): Record<string, string> {
  if (env[name]) return {};
  const path = `${dataDir}/${file}`;
  try {
    return { [name]: readFileSync(path, 'utf8').trim() };
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const key = randomBytes(32).toString('base64url');
    writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
    logger.info({ file: path }, `made a local ${name} (kept for the next starts)`);
    return { [name]: key };
  }
}

/** Loopback unless HOST / METRICS_HOST say otherwise: a laptop's `pnpm start` is not open to its network. */
const loopback = { HOST: env.HOST, METRICS_HOST: env.METRICS_HOST };

// Set before anything starts, so every way out stops what has started: a Ctrl-C or SIGTERM at any moment
// (during start-up too), and a start that fails (a port taken, a bad variable, a crash): gateway first
// (in-flight requests finish), then the worker (active jobs finish), then what we started. A redis-server
// is its own process group and would outlive us: startRedisServer also stops it on any exit that runs
// JavaScript; stopLeftBehindRedis handles the one that doesn't (a SIGKILL).
const started: {
  redis?: Awaited<ReturnType<typeof resolveRedis>>;
  s3?: Awaited<ReturnType<typeof resolveS3>>;
  worker?: Awaited<ReturnType<typeof startWorker>>;
  gateway?: Awaited<ReturnType<typeof startGateway>>;
} = {};
let stopping: Promise<void> | undefined;
/** Stops what has started, once, however many ways out ask for it. */
function stopStarted(): Promise<void> {
  stopping ??= (async () => {
    await started.gateway?.stop();
    await started.worker?.stop();
    await started.s3?.local?.stop();
    await started.redis?.local?.stop();
    await tracing.stop();
  })();
  return stopping;
}
stopOnSignals({ logger, what: 'forms pipeline', deadlineMs: 30_000, stop: stopStarted });

/** Starts it all; throws on the first failure (what started by then is in `started`). */
async function startAll(): Promise<void> {
  // One launcher per DATA_DIR, refused before it starts a second Redis on the same files (PGlite is locked
  // again by the worker; this lock is for the whole folder).
  mkdirSync(dataDir, { recursive: true });
  lockDataDir(`${dataDir}/start`, 'The data folder of `pnpm start`');
  const redis = await resolveRedis();
  started.redis = redis;
  const s3 = await resolveS3();
  started.s3 = s3;
  const chosen = {
    ...redis.env,
    ...s3.env,
    ...resolveLocalKey('ERASURE_KEY', 'erasure-key'),
    ...resolveLocalKey('ID_KEY', 'id-key'),
  };
  // What was chosen here, for `pnpm ops` run beside it on the same DATA_DIR (apps/worker/src/local-settings.ts).
  writeLocalSettings(dataDir, chosen);
  const shared = { ...process.env, ...loopback, DATA_DIR: dataDir, ...chosen };
  // Both read before either starts: a bad variable stops the start before the worker opens the CRM.
  const workerConfig = loadWorkerConfig(shared);
  const gatewayConfig = loadGatewayConfig(shared);
  started.worker = await startWorker(workerConfig, logger.child({ app: 'worker' }));
  // The gateway's own fatal errors (Redis found evicting after it came back) stop it all too.
  // One process: its /readyz is not ready while its worker holds every delivery (an ERASURE_KEY that differs).
  started.gateway = await startGateway(gatewayConfig, logger.child({ app: 'gateway' }), {
    onFatal: failed,
    alsoNotReady: started.worker.notReady,
  });
  logger.info(
    `listening on ${started.gateway.url} (redis ${redis.label}, crm ${started.worker.crm.name}); Ctrl-C to stop`,
  );
}

/**
 * A start that failed: says why in one line (the message names the setting to change: PORT, a variable, the
 * folder held), stops what started, exits 1. The stack is logged only at LOG_LEVEL=debug.
 */
async function failed(err: unknown): Promise<void> {
  logger.debug({ err }, 'start-up failed');
  logger.fatal((err as Error).message);
  setTimeout(() => {
    logger.error('forms pipeline did not stop within 30000 ms; exiting');
    process.exit(1);
  }, 30_000).unref();
  await stopStarted().catch((stopErr: unknown) =>
    logger.error({ err: stopErr }, 'forms pipeline: error while stopping'),
  );
  await exitProcess(1);
}

await startAll().catch(failed);

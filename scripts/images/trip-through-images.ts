import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startLocalS3, startRedisServer } from '@forms/local-services';
import type { ImageConfig } from './inspect-image.ts';
import { runCommand } from './run-command.ts';
import { type ImageProcess, startInImage } from './start-in-image.ts';

export type TripImages = {
  gateway: { image: string; config: ImageConfig; env: Record<string, string>; composeHealthcheck?: string[] };
  worker: { image: string; config: ImageConfig; env: Record<string, string> };
};

/**
 * One submission through both images, each running its own CMD against services on loopback: a Redis from
 * the shipped infra/redis/redis.conf, a fresh database on the PostgreSQL at `databaseUrl`, an S3-compatible
 * server (s3rver). `env` per app is what compose gives it, with the service addresses changed to these.
 * The gateway acknowledges a careers application with a CV; the worker stores it in Postgres and the CV in
 * the bucket; every health check passes; SIGTERM drains both and they exit 0. Then the worker starts once
 * more on the Airtable CRM, which reads the mapping file the image ships. Throws naming the failed step.
 */
export async function tripThroughImages(
  images: TripImages,
  { redisConf, databaseUrl, log }: { redisConf: string; databaseUrl: string; log: (line: string) => void },
): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'forms-trip-'));
  const redis = await startRedisServer({ configFile: redisConf, dir: join(scratch, 'redis') });
  const s3 = await startLocalS3({ dir: join(scratch, 's3') });
  const database = `forms_images_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new URL(databaseUrl);
  await psql(admin, `CREATE DATABASE ${database}`);
  const running: ImageProcess[] = [];
  try {
    const services = {
      REDIS_URL: redis.url,
      QUEUE_NAME: `images-${randomUUID()}`,
      S3_ENDPOINT: s3.endpoint,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    };
    const port = await freePort();
    const databaseAt = new URL(databaseUrl);
    databaseAt.pathname = `/${database}`;
    const worker = await startInImage(images.worker.image, images.worker.config, {
      ...images.worker.env,
      ...services,
      DATABASE_URL: databaseAt.href,
      METRICS_PORT: String(await freePort()),
    });
    running.push(worker);
    await until(() => worker.output().includes('worker consuming'), 60_000, 'the worker image to start', worker);
    log(`worker image: ${lastLine(worker.output(), 'crm ready')}`);
    const gateway = await startInImage(images.gateway.image, images.gateway.config, {
      ...images.gateway.env,
      ...services,
      // As the operator sets it: the image runs with NODE_ENV=production, where a gateway without it stops.
      ID_KEY: randomUUID().repeat(2),
      PORT: String(port),
    });
    running.push(gateway);
    const base = `http://127.0.0.1:${port}`;
    await until(
      async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true,
      60_000,
      'the gateway image to be ready',
      gateway,
    );
    log(`gateway image: ${lastLine(gateway.output(), 'listening')}`);

    const cv = Buffer.concat([
      Buffer.from('%PDF-1.4\n1 0 obj<< /Type /Catalog >>endobj\n% '),
      randomBytes(2048),
      Buffer.from('\n%%EOF\n'),
    ]);
    const email = `image-check-${randomUUID().slice(0, 8)}@acme-careers.io`;
    const response = await fetch(`${base}/api/careers-apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Image Check',
        email,
        role: 'Engineer',
        cvFile: { filename: 'cv.pdf', contentType: 'application/pdf', data: cv.toString('base64') },
      }),
    });
    const answer = (await response.json()) as { success?: boolean; recordId?: string; cvUploadFailed?: boolean };
    if (response.status !== 200 || !answer.success || answer.cvUploadFailed !== false) {
      throw new Error(`gateway image: POST /api/careers-apply answered ${response.status} ${JSON.stringify(answer)}`);
    }
    log(`gateway image: POST /api/careers-apply → ${response.status} ${JSON.stringify(answer)}`);

    const id = answer.recordId as string;
    const query = `SELECT id, kind, cv_key, cv_size, cv_sha256 FROM submissions WHERE id = '${id.replace(/'/g, '')}'`;
    let row = '';
    await until(
      async () => {
        row = await psql(databaseAt, query);
        return row !== '';
      },
      30_000,
      `the worker image to store ${id} in Postgres`,
      worker,
    );
    const [, kind, key, size, sha] = row.split('|');
    const sent = createHash('sha256').update(cv).digest('hex');
    if (kind !== 'careers-apply' || size !== String(cv.length) || sha !== sent) {
      throw new Error(
        `worker image: the stored row ${row} does not describe the CV sent (${cv.length} bytes, ${sent})`,
      );
    }
    log(`worker image: Postgres ${database}.submissions: ${row}`);
    const object = await fetch(`${s3.endpoint}/cvs/${key}`);
    const stored = Buffer.from(await object.arrayBuffer());
    if (!object.ok || createHash('sha256').update(stored).digest('hex') !== sent) {
      throw new Error(`worker image: the bucket has no byte-identical CV at cvs/${key} (${object.status})`);
    }
    log(`worker image: bucket cvs/${key}: ${stored.length} bytes, SHA-256 matches`);

    await healthcheck(images.gateway.config, gateway, 'gateway image HEALTHCHECK', log);
    if (images.gateway.composeHealthcheck) {
      // compose's test names the default port; this gateway listens on a free one.
      const test = images.gateway.composeHealthcheck.map((arg) =>
        arg.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`),
      );
      await healthcheck({ healthcheck: test }, gateway, 'compose healthcheck of gateway', log);
    }
    await healthcheck(images.worker.config, worker, 'worker image HEALTHCHECK', log);

    for (const [name, proc] of [
      ['gateway', gateway],
      ['worker', worker],
    ] as const) {
      const started = performance.now();
      const { code, signal } = await proc.stop('SIGTERM', 40_000);
      if (code !== 0) {
        throw new Error(`${name} image: SIGTERM ended it with ${code ?? signal}, not exit 0:\n${tail(proc.output())}`);
      }
      log(
        `${name} image: SIGTERM → exit 0 in ${((performance.now() - started) / 1000).toFixed(1)} s (${lastLine(proc.output(), 'stopping')})`,
      );
    }

    // The Airtable CRM loads the worker's field mapping (AIRTABLE_MAPPING_FILE) when it starts.
    const airtable = await startInImage(images.worker.image, images.worker.config, {
      ...images.worker.env,
      ...services,
      QUEUE_NAME: `images-airtable-${randomUUID()}`,
      AIRTABLE_API_KEY: 'image-check',
      AIRTABLE_BASE_ID: 'appImageCheck',
      AIRTABLE_ENDPOINT_URL: 'http://127.0.0.1:9',
    });
    running.push(airtable);
    await until(
      () => airtable.output().includes('worker consuming'),
      60_000,
      'the worker image to start on Airtable (its mapping file)',
      airtable,
    );
    log(`worker image on Airtable: ${lastLine(airtable.output(), 'crm ready')}`);
    const { code } = await airtable.stop('SIGTERM', 40_000);
    if (code !== 0)
      throw new Error(`worker image on Airtable: SIGTERM ended it with ${code}:\n${tail(airtable.output())}`);
  } finally {
    for (const proc of running) await proc.remove();
    await s3.stop();
    await redis.stop();
    await psql(admin, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs a HEALTHCHECK test (Docker's ['CMD', …] or ['CMD-SHELL', '…']) in the running container. */
async function healthcheck(
  config: Pick<ImageConfig, 'healthcheck'>,
  proc: ImageProcess,
  what: string,
  log: (line: string) => void,
): Promise<void> {
  const [kind, ...args] = config.healthcheck ?? [];
  if (kind !== 'CMD' && kind !== 'CMD-SHELL') throw new Error(`${what}: none declared`);
  const { code, output } = await proc.exec(kind === 'CMD' ? args : ['/bin/sh', '-c', args.join(' ')]);
  if (code !== 0) throw new Error(`${what} failed (exit ${code}): ${output.trim()}`);
  log(`${what}: exit 0`);
}

async function psql(url: URL, sql: string): Promise<string> {
  const args = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  return (
    await runCommand('psql', [
      ...args,
      '-d',
      url.pathname.slice(1) || 'postgres',
      '-v',
      'ON_ERROR_STOP=1',
      '-At',
      '-c',
      sql,
    ])
  ).trim();
}

async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  proc: ImageProcess,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; it printed:\n${tail(proc.output())}`);
    await sleep(100);
  }
}

/** The `msg` of the last JSON log line that mentions `text`, with its other fields. */
function lastLine(output: string, text: string): string {
  const line =
    output
      .split('\n')
      .filter((l) => l.includes(text))
      .at(-1) ?? '';
  try {
    const { level, time, pid, hostname, app, msg, ...rest } = JSON.parse(line);
    return `"${msg}" ${JSON.stringify(rest)}`;
  } catch {
    return line;
  }
}

function tail(output: string): string {
  return output.trim().split('\n').slice(-15).join('\n');
}

/**
 * `pnpm bench:cv-memory [--uploads 20] [--slots 4]`: peak memory of a gateway process receiving 20 careers
 * applications with a 5 MiB CV each, all at once, with CV_UPLOAD_SLOTS at `--slots` and, side by side in
 * the same run, with as many slots as uploads (the old, uncapped behaviour). The peak is the gateway's own
 * resident set high-water mark (VmHWM in /proc, Linux). Uploads refused past the slots are retried after
 * their Retry-After, as a client would, so every application is accepted in both runs.
 * Everything runs on 127.0.0.1: its own redis-server and s3rver on free ports, data in a temporary folder.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalS3, startRedisServer } from '@forms/local-services';
import { PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { spawnGateway } from '../support/spawn-app.ts';
import { sleep } from '../support/wait.ts';

const { values } = parseArgs({
  options: { uploads: { type: 'string', default: '20' }, slots: { type: 'string', default: '4' } },
});
const uploads = Math.max(1, Math.min(50, Number(values.uploads)));
const slots = Math.max(1, Number(values.slots));
const MiB = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;

const dir = mkdtempSync(join(tmpdir(), 'forms-cv-memory-'));
const redis = await startRedisServer();
const s3 = await startLocalS3({ dir: join(dir, 's3') });
const cv = samplePdf(5 * 1024 * 1024 - samplePdf(0).length - 1).toString('base64');

function peakRss(pid: number): number {
  const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

async function run(slotCount: number) {
  const gateway = await spawnGateway({
    REDIS_URL: redis.url,
    QUEUE_NAME: `cv-memory-${slotCount}`,
    LOG_LEVEL: 'warn',
    CV_UPLOAD_SLOTS: String(slotCount),
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: 'cvs',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  });
  const url = gateway.url;
  for (
    let i = 0;
    i < 300 &&
    !(await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    await sleep(100);
  }
  const idle = peakRss(gateway.child.pid!);
  let busy = 0;
  const started = Date.now();
  const statuses = await Promise.all(
    Array.from({ length: uploads }, async (_, i) => {
      for (let attempt = 0; attempt < 60; attempt++) {
        const res = await fetch(`${url}/api/careers-apply`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `Applicant ${i}`,
            email: `applicant${i}@acme.io`,
            role: 'Engineer',
            cvFile: { filename: 'cv.pdf', contentType: PDF_TYPE, data: cv },
          }),
        });
        await res.arrayBuffer();
        if (res.status !== 503) return res.status;
        busy++;
        await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
      }
      return 503;
    }),
  );
  const peak = peakRss(gateway.child.pid!);
  gateway.child.kill('SIGTERM');
  await gateway.exited;
  const ok = statuses.filter((s) => s === 200).length;
  console.log(
    `CV_UPLOAD_SLOTS=${String(slotCount).padEnd(3)} ${uploads} × 5 MiB CVs at once: ${ok} accepted, ${busy} told to retry, ` +
      `peak RSS ${MiB(peak)} (idle ${MiB(idle)}, growth ${MiB(peak - idle)}), ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return peak - idle;
}

try {
  const uncapped = await run(uploads);
  const capped = await run(slots);
  console.log(`growth with ${slots} slots is ${(capped / uncapped).toFixed(2)} of the uncapped growth`);
} finally {
  await s3.stop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}

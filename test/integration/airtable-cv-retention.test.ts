import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { startTestS3, type TestS3 } from '@forms/local-services';
import { createObjectStorage } from '@forms/object-storage';
import { expireCvs, type RunningWorker, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { careersBody, PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { sendJson } from '../support/http.ts';
import { eventually } from '../support/wait.ts';

// CV retention against the Airtable CRM: the expired CV's record keeps the application but loses the
// attachment and the CV Key, SHA-256, Size and Type fields (PATCH by record id, found by Submission ID).
const BASE = `appCvRetention${Date.now().toString(36)}`;
const KEY = 'patCvRetentionTest';
const bucket = `cv-atr-${randomUUID().slice(0, 8)}`;
let s3: TestS3;
let airtable: FakeAirtable;
let worker: RunningWorker;
let gateway: RunningGateway;
let env: Record<string, string>;

beforeAll(async () => {
  s3 = await startTestS3();
  airtable = await startFakeAirtable({ apiKey: KEY, attachmentFields: { Applications: ['CV'] } });
  env = {
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `airtable-cvr-${randomUUID()}`,
    LOG_LEVEL: 'silent',
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: BASE,
    AIRTABLE_ENDPOINT_URL: airtable.url,
    AIRTABLE_RATE_LIMIT: '20',
    ...s3.env(bucket),
  };
  worker = await startWorker(workerConfig(env), pino({ level: 'silent' }));
  gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
});
afterAll(async () => {
  await gateway?.stop();
  await worker?.stop();
  await airtable?.close();
  await s3?.stop();
});

it('clears the attachment and the CV fields of the expired CV’s record, and only its', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await sendJson(`${gateway.url}/api/careers-apply`, careersBody(randomUUID(), samplePdf(), PDF_TYPE));
    expect(res.status).toBe(200);
    ids.push(res.body.recordId as string);
  }
  const record = (id: string) => airtable.records(BASE, 'Applications').find((r) => r.fields['Submission ID'] === id);
  await eventually(async () => ids.every((id) => record(id)?.fields['CV Key'] === `cv/${id}.pdf`));
  await airtable.attachmentsSettled();

  const config = workerConfig(env);
  const storage = createObjectStorage({ ...config.storage!, createBucket: false }, { maxAttempts: 1 });
  try {
    // The CRM call the sweep makes, for one of the two: only its record loses the CV.
    const cleared = await worker.crm.clearCvLinks([ids[0]!]);
    expect(cleared).toBe(1);
    expect(record(ids[0]!)?.fields).toMatchObject({ CV: [], 'CV Key': null, 'CV SHA-256': null, 'CV Size': null });
    expect(record(ids[0]!)?.fields.Email).toBeTruthy(); // the application stays
    expect(record(ids[1]!)?.fields['CV Key']).toBe(`cv/${ids[1]}.pdf`);

    // Then the sweep itself, 181 days on: both objects go and both records are (again) written cleared.
    const result = await expireCvs({
      storage,
      crm: worker.crm,
      retentionDays: 180,
      now: Date.now() + 181 * 86_400_000,
    });
    expect(result.deleted.sort()).toEqual(ids.map((id) => `cv/${id}.pdf`).sort());
    expect(result.linksCleared).toBe(2);
    expect(record(ids[1]!)?.fields).toMatchObject({ CV: [], 'CV Key': null });
  } finally {
    storage.close();
  }
}, 60_000);

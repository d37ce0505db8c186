import { fileURLToPath } from 'node:url';
import { JOBS, SUBMISSION_KINDS } from '@forms/schemas';
import { loadAirtableMapping, toAirtableWrite } from '@forms/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { eventually } from '../support/wait.ts';

// The steps of docs/site-forms.md#adding-a-form, followed once: the fixture's endpoint row is appended to the one
// list every part reads. If any part restated the kinds by hand, the new form would miss it here. The files of
// a vitest worker share one module registry (`isolate: false`, vitest.config.ts), so the mock meets modules
// evaluated afresh, and the file leaves none of its mocked ones to the next.
vi.hoisted(() => vi.resetModules());
vi.mock('../../packages/schemas/src/submission-endpoints.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../packages/schemas/src/submission-endpoints.ts')>();
  const { NEWSLETTER_SIGNUP } = await import('../fixtures/newsletter-signup.ts');
  return { SUBMISSION_ENDPOINTS: [...original.SUBMISSION_ENDPOINTS, NEWSLETTER_SIGNUP] };
});

let pipeline: Pipeline;
beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
  vi.resetModules();
});

describe('adding a form: a schema, one endpoint row and a CRM mapping entry', () => {
  it('is a route, a job in the catalog and a row in the Postgres store', async () => {
    expect(SUBMISSION_KINDS).toContain('newsletter-signup');
    expect(JOBS).toHaveProperty('newsletter-signup.v1');
    const res = await sendJson(`${pipeline.gateway.url}/api/newsletter-signup`, {
      email: 'Reader@Acme.io',
      topic: 'launches',
    });
    expect(res).toMatchObject({
      status: 200,
      body: { success: true, message: 'You are subscribed; the next issue is on its way.' },
    });
    const refused = await sendJson(`${pipeline.gateway.url}/api/newsletter-signup`, { topic: 'launches' });
    expect(refused).toMatchObject({ status: 400, body: { code: 'EMAIL_REQUIRED' } });
    await eventually(async () => {
      const { rows } = await pipeline.db.query('SELECT kind, payload FROM submissions WHERE email = $1', [
        'reader@acme.io',
      ]);
      const [row] = rows as { kind: string; payload: { topic?: string } }[];
      return rows.length === 1 && row?.kind === 'newsletter-signup' && row.payload.topic === 'launches';
    });
  });

  it('is documented in /openapi.json', async () => {
    const spec = await (await fetch(`${pipeline.gateway.url}/openapi.json`)).json();
    expect(spec.paths['/api/newsletter-signup']?.post?.summary).toBe('Subscribe to the newsletter');
  });

  it('needs its entry in the Airtable mapping, and maps with it', () => {
    expect(() => loadAirtableMapping()).toThrow(/newsletter-signup/);
    const mapping = loadAirtableMapping(
      fileURLToPath(new URL('../fixtures/newsletter-airtable-mapping.json', import.meta.url)),
    );
    const write = toAirtableWrite(
      {
        v: 1,
        kind: 'newsletter-signup' as never,
        submissionId: 'sub_1',
        recordId: 'sub_1',
        acceptedAt: '2026-11-23T10:00:00.000Z',
        data: { email: 'reader@acme.io', topic: 'launches' } as never,
      },
      mapping,
    );
    expect(write).toMatchObject({
      table: 'Newsletter',
      mergeOn: 'Submission ID',
      fields: { Email: 'reader@acme.io', Topic: 'launches' },
    });
  });
});

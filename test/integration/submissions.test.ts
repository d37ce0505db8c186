import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '@forms/gateway';
import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import type { Database } from '@forms/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

let pipeline: Pipeline;
let db: Database;
let gateway: RunningGateway;

beforeAll(async () => {
  pipeline = await startPipeline();
  ({ db, gateway } = pipeline);
});
afterAll(() => pipeline?.stop());

describe('every submission endpoint, gateway to CRM row', () => {
  it.each(SUBMISSION_ENDPOINTS.map((e) => [e.kind, e] as const))(
    '%s: acknowledged, then a row lands',
    async (kind, endpoint) => {
      const tag = randomUUID();
      const body = validBody(kind, tag);
      const res = await sendJson(gateway.url + endpoint.path, body, endpoint.method);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);

      let row: Record<string, any> | undefined;
      await eventually(async () => {
        ({
          rows: [row],
        } = await db.query(`SELECT * FROM submissions WHERE email = $1`, [String(body[endpoint.emailField])]));
        return row !== undefined;
      });
      expect(row).toMatchObject({ kind, payload: body });
      expect(new Date(row!.accepted_at).getTime()).toBeLessThanOrEqual(new Date(row!.delivered_at).getTime());
      if ('recordId' in res.body) expect(row!.record_id).toBe(res.body.recordId);
      if (endpoint.contact) {
        const { rows } = await db.query('SELECT id, fields FROM contacts WHERE email = $1', [body.email]);
        expect(rows).toEqual([{ id: res.body.recordId, fields: body }]);
      } else {
        expect(row!.id).toBe(row!.record_id);
      }
    },
  );

  it('merges contact and contact-update for one email into one contact row', async () => {
    const email = `merge-${randomUUID()}@acme.io`;
    const first = await sendJson(`${gateway.url}/api/contact`, { email, name: 'First', message: 'hi' });
    const second = await sendJson(
      `${gateway.url}/api/contact-update`,
      { email: email.toUpperCase(), name: 'Second', pricingTier: 'macro' },
      'PATCH',
    );
    expect(second.body).toMatchObject({ recordId: first.body.recordId, updated: true });
    await eventually(
      async () => (await db.query('SELECT 1 FROM submissions WHERE email = $1', [email])).rows.length === 2,
    );
    const { rows } = await db.query('SELECT id, fields FROM contacts WHERE email = $1', [email]);
    expect(rows).toEqual([
      { id: first.body.recordId, fields: { email, name: 'Second', message: 'hi', pricingTier: 'macro' } },
    ]);
  });
});

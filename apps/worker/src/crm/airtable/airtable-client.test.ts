import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@forms/local-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AirtableApiError,
  classifyAirtableFailure,
  createAirtableClient,
  mayStillLand,
  parseRetryAfter,
} from './airtable-client.ts';

let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' };
let seen: { method?: string; url?: string; auth?: string; body?: any } = {};
const server = createServer(async (req: IncomingMessage, res) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  seen = { method: req.method, url: req.url, auth: req.headers.authorization, body: JSON.parse(text) };
  if (answer.status === 0) return; // never answer: the client's timeout must fire
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
});
let endpointUrl = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpointUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
// A generous timeout for answered requests (a loaded CI machine can take a while over the first one); the
// timeout test passes its own short one.
const client = (timeoutMs = 5_000) =>
  createAirtableClient({ apiKey: 'patKey', baseId: 'appBase', endpointUrl, timeoutMs });

describe('the Airtable client', () => {
  it('sends an upsert with typecast to the endpoint, table name encoded, with the bearer token', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        records: [{ id: 'rec1', fields: { Email: 'a@b.c' } }],
        createdRecords: ['rec1'],
        updatedRecords: [],
      }),
    };
    const result = await client().upsert('Webinar Registrations', [{ Email: 'a@b.c' }], ['Email']);
    expect(result.createdRecords).toEqual(['rec1']);
    expect(seen).toEqual({
      method: 'PATCH',
      url: '/v0/appBase/Webinar%20Registrations',
      auth: 'Bearer patKey',
      body: {
        performUpsert: { fieldsToMergeOn: ['Email'] },
        records: [{ fields: { Email: 'a@b.c' } }],
        typecast: true,
      },
    });
  });

  it("keeps Airtable's error type and message, and Retry-After", async () => {
    answer = {
      status: 422,
      body: JSON.stringify({ error: { type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Nope"' } }),
    };
    const invalid = await client()
      .upsert('T', [{ Nope: 1 }], ['Email'])
      .catch((e) => e);
    expect(invalid).toBeInstanceOf(AirtableApiError);
    expect(invalid.message).toBe('Airtable 422 UNKNOWN_FIELD_NAME: Unknown field name: "Nope"');

    answer = {
      status: 429,
      body: JSON.stringify({ errors: [{ error: 'RATE_LIMIT_REACHED', message: 'slow down' }] }),
      headers: { 'retry-after': '7' },
    };
    const limited = await client()
      .upsert('T', [{ A: 1 }], ['A'])
      .catch((e) => e);
    expect([limited.type, limited.retryAfterMs]).toEqual(['RATE_LIMIT_REACHED', 7_000]);
  });

  it('gives up on a request that does not answer within its timeout, as a retryable failure', async () => {
    answer = { status: 0, body: '' };
    const err = await client(300)
      .upsert('T', [{ A: 1 }], ['A'])
      .catch((e) => e);
    // Its own deadline ended it (a hung server never answers: without one this would wait for ever).
    expect(err.name).toBe('TimeoutError');
    expect(classifyAirtableFailure(err)).toBe('retryable');
    expect(mayStillLand(err)).toBe(true);
  });

  it('knows a request that never left cannot land later: its records are free at once', async () => {
    // A port nothing listens on: the connection is refused before any byte of the request is sent.
    const port = await freePort();
    const refused = await createAirtableClient({
      apiKey: 'patKey',
      baseId: 'appBase',
      endpointUrl: `http://127.0.0.1:${port}`,
      timeoutMs: 5_000,
    })
      .upsert('T', [{ A: 1 }], ['A'])
      .catch((e) => e);
    expect(classifyAirtableFailure(refused)).toBe('retryable');
    expect(mayStillLand(refused)).toBe(false);
  });

  it('classifies every failure one way', () => {
    const at = (status: number) => classifyAirtableFailure(new AirtableApiError(status, 'X', 'x', undefined));
    expect([429, 422, 413, 401, 403, 404, 400, 408, 500, 502, 503].map(at)).toEqual([
      'rate-limited',
      'split',
      'split',
      'base-fault',
      'base-fault',
      'base-fault',
      'permanent',
      'retryable',
      'retryable',
      'retryable',
      'retryable',
    ]);
    expect(classifyAirtableFailure(new TypeError('fetch failed'))).toBe('retryable');
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('30')).toBe(30_000);
    expect(parseRetryAfter(new Date(1_000_000 + 5_000).toUTCString(), 1_000_000)).toBeGreaterThan(3_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

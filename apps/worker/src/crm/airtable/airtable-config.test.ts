import { expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';

it('chooses Airtable only with both key and base, with documented defaults', () => {
  expect(loadConfig({}).airtable).toBeUndefined();
  expect(loadConfig({}).concurrency).toBe(100);
  const config = loadConfig({ AIRTABLE_API_KEY: 'pat', AIRTABLE_BASE_ID: 'appX' });
  expect(config.airtable).toEqual({
    apiKey: 'pat',
    baseId: 'appX',
    endpointUrl: 'https://api.airtable.com',
    mappingFile: undefined,
    rateLimit: 5,
    requestsPerSecond: 4.5,
    lockoutMs: 30_000,
    requestTimeoutMs: 15_000,
    faultProbeMs: 30_000,
  });
  expect(config.concurrency).toBe(100);
  expect(loadConfig({ AIRTABLE_API_KEY: 'pat', AIRTABLE_BASE_ID: 'appX', WORKER_CONCURRENCY: '60' }).concurrency).toBe(
    60,
  );
});

it('names the variable that is wrong or missing', () => {
  expect(() => loadConfig({ AIRTABLE_API_KEY: 'pat' })).toThrow(/AIRTABLE_BASE_ID must be set too/);
  expect(() => loadConfig({ AIRTABLE_BASE_ID: 'appX' })).toThrow(/AIRTABLE_API_KEY must be set too/);
  expect(() => loadConfig({ AIRTABLE_API_KEY: 'pat', AIRTABLE_BASE_ID: 'appX', AIRTABLE_RATE_MARGIN: '1.5' })).toThrow(
    /AIRTABLE_RATE_MARGIN/,
  );
  expect(() =>
    loadConfig({ AIRTABLE_API_KEY: 'pat', AIRTABLE_BASE_ID: 'appX', AIRTABLE_ENDPOINT_URL: 'nope' }),
  ).toThrow(/AIRTABLE_ENDPOINT_URL/);
});

import { expect, it } from 'vitest';
import { loadConfig } from './config.ts';

it('stops on a bad value, naming the variable', () => {
  expect(() => loadConfig({ WORKER_CONCURRENCY: 'many' })).toThrow(/WORKER_CONCURRENCY/);
  expect(() => loadConfig({ REDIS_URL: 'not a url' })).toThrow(/REDIS_URL/);
  expect(() => loadConfig({ DATABASE_QUERY_TIMEOUT_MS: '0' })).toThrow(/DATABASE_QUERY_TIMEOUT_MS/);
  expect(() => loadConfig({ AIRTABLE_API_KEY: 'pat' })).toThrow(/AIRTABLE_BASE_ID/);
});

it('has the documented defaults', () => {
  const config = loadConfig({});
  expect(config).toMatchObject({
    redis: { mode: 'single', url: 'redis://127.0.0.1:6379', prefix: 'bull' },
    queueName: 'submissions',
    concurrency: 100,
    lockDurationMs: 30_000,
    retryBaseDelayMs: 5_000,
  });
  expect(config.pgliteDir).toBe('.data/pglite');
  expect(config.databaseTimeouts).toEqual({ connectTimeoutMs: 5_000, queryTimeoutMs: 10_000 });
});

import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { formatAge } from './failed-job-row.ts';
import { errorGroup, failureCode } from './failure-code.ts';
import { parseTime } from './parse-time.ts';
import { runOps } from './run-ops.ts';

describe('parseTime', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('takes durations as that long ago, and ISO times', () => {
    expect(parseTime('90s', now)).toBe(now - 90_000);
    expect(parseTime('2h', now)).toBe(now - 7_200_000);
    expect(parseTime('3d', now)).toBe(now - 3 * 86_400_000);
    expect(parseTime('2026-11-23T09:30Z', now)).toBe(Date.parse('2026-11-23T09:30Z'));
  });
  it('refuses anything else as a usage error', () => {
    for (const bad of ['yesterday', '2 hours', '', '12'])
      expect(() => parseTime(bad, now)).toThrow(InvalidArgumentError);
  });
});

describe('failure codes', () => {
  it('reads Airtable status and code, groups other reasons without ids and numbers', () => {
    expect(failureCode('airtable rejected the record: Airtable 422 INVALID_VALUE_FOR_COLUMN: Field "X"')).toEqual({
      status: 422,
      code: 'INVALID_VALUE_FOR_COLUMN',
    });
    expect(failureCode('connect ECONNREFUSED 127.0.0.1:5432')).toEqual({});
    expect(errorGroup('Airtable 503 SERVICE_UNAVAILABLE: Injected outage')).toBe('503 SERVICE_UNAVAILABLE');
    expect(errorGroup('fetch failed: connect ECONNREFUSED 127.0.0.1:59999')).toBe(
      'fetch failed: connect ECONNREFUSED 127.0.0.1:59999',
    );
    expect(errorGroup('fetch failed: getaddrinfo ENOTFOUND api.example (api.example:443) after 3 tries')).toBe(
      'fetch failed: getaddrinfo ENOTFOUND api.example (api.example:443) after N tries',
    );
    expect(errorGroup('new row for relation "submissions" violates check constraint "x" (sub_01ABC, 42 ms)')).toBe(
      'new row for relation "…" violates check constraint "…" (<id>, N ms)',
    );
  });
  it('formats ages as an operator reads them', () => {
    expect([formatAge(5), formatAge(93), formatAge(7_260), formatAge(90_000)]).toEqual([
      '5s',
      '1m33s',
      '2h01m',
      '1d01h',
    ]);
  });
});

describe('config and exit codes', () => {
  it('reads REDIS_URL and QUEUE_NAME as the apps do, naming a bad variable', () => {
    expect(loadConfig({})).toMatchObject({
      redis: { mode: 'single', url: 'redis://127.0.0.1:6379', prefix: 'bull' },
      queueName: 'submissions',
    });
    expect(loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001' }).redis).toMatchObject({
      mode: 'cluster',
      prefix: '{forms}',
    });
    expect(() => loadConfig({ QUEUE_NAME: 'a b' })).toThrow(/QUEUE_NAME/);
  });
  it('0 for help, 2 for bad usage or configuration, on every command', async () => {
    const out: string[] = [];
    const sink = { write: (t: string) => out.push(t) > 0 } as unknown as NodeJS.WritableStream;
    const ctx = {
      config: () => loadConfig({ QUEUE_NAME: 'a b' }),
      stdout: sink,
      stderr: sink,
      stdin: process.stdin,
      now: Date.now,
    };
    for (const command of ['failed', 'show', 'replay', 'purge', 'status']) {
      expect(await runOps([command, '--help'], ctx)).toBe(0);
      expect(out.join('')).toContain(`Usage: ops ${command}`);
    }
    expect(await runOps(['nope'], ctx)).toBe(2);
    expect(await runOps(['failed', '--since', 'soon'], ctx)).toBe(2);
    expect(await runOps(['replay'], ctx)).toBe(2); // nothing to replay said
    expect(await runOps(['purge'], ctx)).toBe(2);
    expect(await runOps(['status'], ctx)).toBe(2); // the bad QUEUE_NAME
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalSettings } from '@forms/worker';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

// Issue 49.2: once `pnpm start` had run in the checkout, `pnpm test:fast` failed: ops' loadConfig read
// `.data/local.json` from the working folder by itself, so its test received the port of the developer's
// own Redis instead of the default. Loading a configuration now reads no file: main.ts reads what a start
// left in DATA_DIR and passes it in. Here a folder of the test's own plays the checkout.
const STOPPED_START = {
  REDIS_URL: 'redis://127.0.0.1:26463',
  S3_ENDPOINT: 'http://127.0.0.1:4568',
  S3_BUCKET: 'cvs',
  ERASURE_KEY: 'a-local-erasure-key-of-the-developer',
};
let checkout: string;
const home = process.cwd();

beforeEach(() => {
  checkout = mkdtempSync(join(tmpdir(), 'ops-checkout-'));
  mkdirSync(join(checkout, '.data'));
  writeFileSync(join(checkout, '.data', 'local.json'), JSON.stringify(STOPPED_START));
});
afterEach(() => {
  process.chdir(home);
  rmSync(checkout, { recursive: true, force: true });
});

it('reads no file: a .data/local.json in the working folder or DATA_DIR changes nothing it is not given', () => {
  process.chdir(checkout);
  for (const env of [{}, { DATA_DIR: join(checkout, '.data') }]) {
    const config = loadConfig(env);
    expect(config.redis).toMatchObject({ mode: 'single', url: 'redis://127.0.0.1:6379' });
    expect(config.redisOrigin.from).toMatch(/^the default/);
  }
});

it('takes what a start saved as an argument, says where its Redis came from, and lets REDIS_URL win', () => {
  const saved = readLocalSettings(join(checkout, '.data'));
  const config = loadConfig({}, saved);
  expect(config.redis).toMatchObject({ url: STOPPED_START.REDIS_URL });
  expect(config.redisOrigin.from).toBe(
    `${join(checkout, '.data', 'local.json')}, written by the last \`pnpm start\` here`,
  );
  const set = loadConfig({ REDIS_URL: 'redis://127.0.0.1:7000' }, saved);
  expect(set.redis).toMatchObject({ url: 'redis://127.0.0.1:7000' });
  expect(set.redisOrigin.from).toBe('REDIS_URL');
  expect(readLocalSettings(join(checkout, 'nothing-here'))).toBeUndefined();
});

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('launchChromium without a browser', () => {
  it('says what to install instead of failing inside playwright', () => {
    // A separate process, so CHROMIUM_PATH is read afresh at import.
    const script = `import('./launch-chromium.ts').then((m) => m.launchChromium()).then(
      () => { console.log('launched'); process.exit(0); },
      (err) => { console.log(err.message); process.exit(1); })`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/No Chromium at \/nonexistent\/chromium.*scripts\/setup\.sh.*apt-get install chromium/s);
  });
});

import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium package; a test tool never downloads a browser. CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium for the browser tests. Without the browser, fails with what to install instead of
 * playwright's "Executable doesn't exist" (which suggests a download we never do). The flags keep it off
 * the network: on a closed machine its background connections are refused by the dozen.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: the browser tests use Debian's chromium package. ` +
        'Run `bash scripts/setup.sh` (it installs it), or `sudo apt-get install chromium`, ' +
        'or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

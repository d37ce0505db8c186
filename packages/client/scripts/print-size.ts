/**
 * `pnpm --filter @forms/client size`: the bytes a site downloads, minified and gzipped (level 9, what a
 * CDN or `compression` middleware typically serves), for the core and for the optional checks.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const GOAL = 3 * 1024;
for (const name of ['index.js', 'checks.js']) {
  const code = readFileSync(new URL(`../dist/${name}`, import.meta.url));
  const gz = gzipSync(code, { level: 9 }).length;
  const note = name === 'index.js' ? (gz <= GOAL ? ' (goal: under 3 KB, met)' : ' (goal: under 3 KB, MISSED)') : '';
  console.log(`@forms/client/dist/${name}: ${code.length} B minified, ${gz} B minified+gzipped${note}`);
}

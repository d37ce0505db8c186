import { pino } from 'pino';
import { expect, it } from 'vitest';
import { noteRefusedRedirect } from './note-refused-redirect.ts';

// The counter, which counts every one, is read through /admin/metrics in plain-form-site-mistake-keeps-the-lead.
it('warns once per origin per interval, and logs the origin only', async () => {
  const lines: { origin: string; field: string }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  let clock = 0;
  const refused = noteRefusedRedirect({
    logger,
    intervalMs: 1_000,
    now: () => clock,
  });
  refused('_next', 'https://www.acme.example/thanks.html?email=ada@acme.io', 'contact');
  refused('_next', 'https://www.acme.example/other.html', 'contact');
  refused('_error', 'https://shop.acme.example/error.html', 'careers-apply');
  refused('_next', 'not a url', 'contact');
  clock = 1_000;
  refused('_next', 'https://www.acme.example/thanks.html', 'contact');
  expect(lines.map((l) => [l.field, l.origin])).toEqual([
    ['_next', 'https://www.acme.example'],
    ['_error', 'https://shop.acme.example'],
    ['_next', 'a value that is not a URL'],
    ['_next', 'https://www.acme.example'],
  ]);
  expect(JSON.stringify(lines)).not.toContain('ada@acme.io');
});

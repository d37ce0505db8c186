import { request } from 'node:http';
import { recordIndexKey } from '@forms/schemas';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { validBody } from '../support/valid-bodies.ts';

// Issue 19, item 1: `/ADMIN/metrics` and `/Admin/submissions/<con_id>` answered 200 without the token (and
// with `Access-Control-Allow-Origin: *`): the token check was a `router.use` on a prefixed router, which
// @koa/router matches case-sensitively while its routes match case-insensitively, and the CORS exclusion
// compared the path as sent. Property: whatever the spelling of an admin path (case, trailing and doubled
// slashes, percent-encoding, dot segments), it is never answered 2xx without the token, and never with CORS.
// PROPERTY_RUNS raises the count (`pnpm fuzz`).
const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
const TOKEN = 'admin-token-for-tests-0123456789';
let gateway: TestGateway;
let port: string;
let adminPaths: string[];

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), { ADMIN_TOKEN: TOKEN });
  port = new URL(gateway.url).port;
  // Real ids, so that the status route would answer 200 with the token.
  const contact = await sendJson(`${gateway.url}/api/contact`, validBody('contact', 'admin-spelling'));
  const signup = await sendJson(`${gateway.url}/api/creator-signup`, validBody('creator-signup', 'admin-spelling'));
  expect([contact.status, signup.status]).toEqual([200, 200]);
  // A contact's recordId is found through the record index, which a worker writes when it takes the job.
  const jobs = await gateway.queue.getJobs(['waiting']);
  const contactJob = jobs.find((job) => job.data.recordId === contact.body.recordId)!;
  await gateway.redis.zadd(recordIndexKey(gateway.queueName, contact.body.recordId), Date.now(), contactJob.id!);
  adminPaths = [
    '/admin/metrics',
    '/admin/queues',
    '/admin/queues/api/queues',
    `/admin/submissions/${contact.body.recordId}`,
    `/admin/submissions/${signup.body.recordId}`,
  ];
});
afterAll(() => gateway?.stop());

/** GET with the path exactly as given: fetch and URL would resolve dot segments and re-encode. */
function getRaw(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; cors: unknown }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, cors: res.headers['access-control-allow-origin'] }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${path}: no answer within 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

const hex = (code: number) => code.toString(16).padStart(2, '0');

/** One character as sent: itself, in the other case, or percent-encoded (upper- or lower-case hex). */
const spelledChar = (char: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(char) },
    { weight: 2, arbitrary: fc.constant(char.toUpperCase()) },
    { weight: 1, arbitrary: fc.constant(`%${hex(char.charCodeAt(0)).toUpperCase()}`) },
    { weight: 1, arbitrary: fc.constant(`%${hex(char.charCodeAt(0))}`) },
  );

const spelledSegment = (segment: string) => fc.tuple(...[...segment].map(spelledChar)).map((chars) => chars.join(''));

/** What may stand between two segments: one slash or more, a `.` segment, a detour through `x/..`. */
const separator = fc.oneof(
  { weight: 4, arbitrary: fc.constant('/') },
  { weight: 1, arbitrary: fc.constantFrom('//', '///') },
  { weight: 1, arbitrary: fc.constantFrom('/./', '/%2e/', '/%2E/', '/.//') },
  { weight: 1, arbitrary: fc.constantFrom('/x/../', '/X/%2e%2e/', '/x/%2E./', '/x//../') },
);

const spelledPath = (path: string) => {
  const segments = path.split('/').slice(1);
  return fc
    .tuple(
      fc.constantFrom('', '/', '/./', '/x/../'),
      fc.tuple(...segments.map(spelledSegment)),
      fc.array(separator, { minLength: segments.length - 1, maxLength: segments.length - 1 }),
      fc.constantFrom('', '', '/', '//', '/.', '?x=1'),
    )
    .map(([lead, spelled, separators, tail]) => {
      let out = lead === '' ? '' : lead.slice(0, -1);
      for (const [i, segment] of spelled.entries()) out += (i === 0 ? '/' : separators[i - 1]) + segment;
      return out + tail;
    });
};

it('no spelling of an admin path is answered 2xx without the token, nor with CORS', async () => {
  const opened: string[] = [];
  for (const path of adminPaths) {
    // The path as it is meant is refused without the token, and answered with it.
    expect((await getRaw(path)).status, path).toBe(401);
    expect((await getRaw(path, { authorization: `Bearer ${TOKEN}` })).status, path).toBe(200);
    await fc.assert(
      fc.asyncProperty(spelledPath(path), async (spelling) => {
        const { status, cors } = await getRaw(spelling, { origin: 'https://evil.example' });
        if ((status >= 200 && status < 300) || cors !== undefined) opened.push(`${spelling} → ${status} cors ${cors}`);
        return true;
      }),
      { numRuns: RUNS, examples: [['/ADMIN/metrics'], [path.toUpperCase()], [`/${path.slice(1)}/`]] },
    );
  }
  expect(opened.slice(0, 10)).toEqual([]);
}, 120_000);

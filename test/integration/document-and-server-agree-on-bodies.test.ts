import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bodyFor, formBodyFor, rawJson } from '../support/body-arbitrary.ts';
import { encodeForm } from '../support/form-encoding.ts';
import { startJudgedGateway } from '../support/judged-gateway.ts';

// Issue 14: a client validating against /openapi.json must reach the decision the gateway reaches. Bodies
// are drawn from each endpoint's request schema as served (values in and out of their caps and patterns,
// junk, unknown members), judged by ajv on that schema plus the rules the operation states in words (body
// limit, work-email lists), and sent: accepted exactly when the document accepts, refused with the status
// the document gives. PROPERTY_RUNS raises the count (`pnpm fuzz`).
const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

let judged: Awaited<ReturnType<typeof startJudgedGateway>>;
beforeAll(async () => {
  judged = await startJudgedGateway(inject('redisUrl'));
});
afterAll(() => judged?.stop());

describe('the gateway decides as /openapi.json says', () => {
  it('for bodies drawn from every submission endpoint’s schema', async () => {
    const problems: string[] = [];
    expect(judged.oracle.operations.length).toBe(11);
    for (const op of judged.oracle.operations) {
      await fc.assert(
        fc.asyncProperty(rawJson(bodyFor(op.schema, { skip: ['cvFile'] })), async (raw) => {
          const found = await judged.send(op, raw);
          problems.push(...found);
          return found.length === 0;
        }),
        { numRuns: RUNS, interruptAfterTimeLimit: 20_000, endOnFailure: true },
      );
    }
    problems.push(...(await judged.queued()));
    console.info(`document agreement: ${JSON.stringify(judged.tally)}`);
    expect(problems.slice(0, 10)).toEqual([]);
    // Both decisions must be exercised, or the property proves little.
    expect(judged.tally.accepted).toBeGreaterThan(RUNS);
    expect(judged.tally.refused).toBeGreaterThan(RUNS);
  }, 240_000);

  // Issue 48: a form post is judged by the same schemas, on the object the guide's form convention makes
  // of it (docs/site-forms.md#plain-html-forms), and the limit on the bytes sent.
  it('for the same bodies posted as forms, urlencoded or multipart', async () => {
    const problems: string[] = [];
    const before = { ...judged.tally };
    for (const op of judged.oracle.operations) {
      await fc.assert(
        fc.asyncProperty(formBodyFor(op.schema, { skip: ['cvFile'] }), async (sample) => {
          const found = await judged.sendForm(op, encodeForm(sample.fields, sample.encoding), sample.read);
          problems.push(...found);
          return found.length === 0;
        }),
        { numRuns: RUNS, interruptAfterTimeLimit: 20_000, endOnFailure: true },
      );
    }
    problems.push(...(await judged.queued()));
    console.info(`document agreement (forms): ${JSON.stringify(judged.tally)}`);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(judged.tally.accepted - before.accepted).toBeGreaterThan(RUNS);
    expect(judged.tally.refused - before.refused).toBeGreaterThan(RUNS);
  }, 240_000);
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hostileForm, hostileRawJson } from '../support/body-arbitrary.ts';
import { startJudgedGateway } from '../support/judged-gateway.ts';

// Issue 10, fuzzing: bodies generated from each endpoint's schema and made hostile (wrong types, missing
// fields, 100 KB strings, NUL and lone surrogates, __proto__ and constructor keys, nesting past the cap,
// huge numbers, non-objects, cut-off JSON). Every answer is a 200 for a body the document accepts or a 4xx
// with a code; never a 5xx; the queue holds exactly one valid job per 200. FUZZ_RUNS per endpoint
// (default 100; `pnpm fuzz` runs 2,000).
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let judged: Awaited<ReturnType<typeof startJudgedGateway>>;
beforeAll(async () => {
  judged = await startJudgedGateway(inject('redisUrl'));
});
afterAll(() => judged?.stop());

describe('fuzzed submission bodies', () => {
  it('are a 4xx with a code or a 200 for a valid body, never a 5xx, and nothing invalid is queued', async () => {
    const problems: string[] = [];
    for (const op of judged.oracle.operations) {
      await fc.assert(
        fc.asyncProperty(hostileRawJson(op.schema, { skip: ['cvFile'] }), async (raw) => {
          const found = await judged.send(op, raw);
          problems.push(...found);
          return found.length === 0;
        }),
        { numRuns: RUNS, interruptAfterTimeLimit: Math.max(20_000, RUNS * 150), endOnFailure: true },
      );
    }
    problems.push(...(await judged.queued()));
    console.info(`fuzz: ${RUNS} per endpoint, ${JSON.stringify(judged.tally)}`);
    expect(problems.slice(0, 10)).toEqual([]);
  }, 900_000);

  // Issue 48: the same for form posts (urlencoded and multipart), hostile ones included: too many fields,
  // names nested past the limit, prototype paths, multipart cut short or with the wrong boundary.
  it('as forms, are a 4xx with a code or a 200, never a 5xx, and nothing invalid is queued', async () => {
    const problems: string[] = [];
    for (const op of judged.oracle.operations) {
      await fc.assert(
        fc.asyncProperty(hostileForm(op.schema, { skip: ['cvFile'] }), async (form) => {
          const found = await judged.sendForm(op, form);
          problems.push(...found);
          return found.length === 0;
        }),
        { numRuns: RUNS, interruptAfterTimeLimit: Math.max(20_000, RUNS * 150), endOnFailure: true },
      );
    }
    problems.push(...(await judged.queued()));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    console.info(`fuzz (forms): ${RUNS} per endpoint, ${JSON.stringify(judged.tally)}`);
    expect(problems.slice(0, 10)).toEqual([]);
  }, 900_000);
});

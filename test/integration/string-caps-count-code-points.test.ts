import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startJudgedGateway } from '../support/judged-gateway.ts';

// Issue 14.3: caps were counted in UTF-16 units by the gateway and in characters (code points) by JSON
// Schema: 150 emoji in a 200-capped field were refused although the document allows them.
let judged: Awaited<ReturnType<typeof startJudgedGateway>>;
beforeAll(async () => {
  judged = await startJudgedGateway(inject('redisUrl'));
});
afterAll(() => judged?.stop());

describe('string caps count code points, as the document does', () => {
  it.each([
    ['150 emoji in a 200 cap', '😀'.repeat(150), true],
    ['200 emoji in a 200 cap', '😀'.repeat(200), true],
    ['201 emoji in a 200 cap', '😀'.repeat(201), false],
    ['200 letters with a combining accent each (400 code points)', 'e\u0301'.repeat(200), false],
    ['199 letters and a lone surrogate', `${'a'.repeat(199)}\ud800`, true],
  ])('%s', async (_label, name, accepted) => {
    const creator = judged.oracle.operations.find((op) => op.path === '/api/creator-signup')!;
    const before = judged.tally.accepted;
    expect(await judged.send(creator, JSON.stringify({ email: 'ada@acme.io', name }))).toEqual([]);
    expect(judged.tally.accepted - before).toBe(accepted ? 1 : 0);
  });
});

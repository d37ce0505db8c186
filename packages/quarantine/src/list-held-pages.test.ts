import { randomUUID } from 'node:crypto';
import type { JobPayload, SpamJudgement } from '@forms/schemas';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { listHeld, quarantineKeys } from './held-submissions.ts';
import { createQuarantine } from './hold-submission.ts';

// listHeld pages the whole quarantine newest first, each held one once, however it is narrowed: by age (a
// window of the index's scores), by layer or reason (a bounded scan that hands back where it stopped).
let redis: Redis;
const queue = `held-pages-${randomUUID()}`;
const keys = () => quarantineKeys({ prefix: 'bull' }, queue);
const HELD = 130;
let now: number;

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'));
  const hold = createQuarantine(redis, { prefix: 'bull' }, queue, {
    maxAgeMs: 86_400_000,
    maxCount: 1_000,
    timeoutMs: 5_000,
  });
  for (let i = 0; i < HELD; i++) {
    const payload = {
      kind: 'contact',
      submissionId: id(i),
      recordId: id(i),
      acceptedAt: '',
      data: {},
    } as unknown as JobPayload;
    const judgement: SpamJudgement = {
      reasons: [
        i % 3 === 0
          ? { layer: 'rules', code: 'link-bot', weight: 1 }
          : { layer: 'honeypot', code: 'filled', weight: 1 },
      ],
    };
    await hold(payload, judgement);
  }
  // Spread the scores: entry i held i minutes ago, so the newest first is 0, 1, 2, …
  now = Date.now();
  for (let i = 0; i < HELD; i++) await redis.zadd(keys().spamIndex, now - i * 60_000, id(i));
});
afterAll(async () => {
  await redis.del(...Object.values(keys()));
  redis.disconnect();
});

const id = (i: number) => `sub_${String(i).padStart(26, '0')}`;

async function all(query: Omit<Parameters<typeof listHeld>[2], 'offset' | 'now'>) {
  const seen: string[] = [];
  let pages = 0;
  for (let offset: number | undefined = 0; offset !== undefined; pages++) {
    const page = await listHeld(redis, keys(), { ...query, offset, now });
    seen.push(...page.rows.map((r) => r.id));
    offset = page.next;
  }
  return { seen, pages };
}

it('pages through every held submission newest first, each once', async () => {
  const { seen, pages } = await all({ limit: 50 });
  expect(seen).toEqual(Array.from({ length: HELD }, (_, i) => id(i)));
  expect(pages).toBe(3);
});

it('narrowed by layer or reason, lists exactly the matching ones in order', async () => {
  const rules = Array.from({ length: HELD }, (_, i) => i)
    .filter((i) => i % 3 === 0)
    .map(id);
  expect((await all({ limit: 20, layer: 'rules' })).seen).toEqual(rules);
  expect((await all({ limit: 20, reason: 'rules:link-bot' })).seen).toEqual(rules);
  expect((await all({ limit: 20, reason: 'filled' })).seen).toHaveLength(HELD - rules.length);
  expect((await all({ limit: 20, layer: 'akismet' })).seen).toEqual([]);
});

it('by age: a window of the index', async () => {
  const lastHour = await all({ limit: 50, maxAgeMs: 3_600_000 - 1 });
  expect(lastHour.seen).toEqual(Array.from({ length: 60 }, (_, i) => id(i)));
  const older = await all({ limit: 50, minAgeMs: 3_600_000 });
  expect(older.seen).toEqual(Array.from({ length: HELD - 60 }, (_, i) => id(i + 60)));
});

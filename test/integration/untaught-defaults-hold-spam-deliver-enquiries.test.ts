import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { type StartProcess, spawnStart } from '../support/spawn-start.ts';
import { eventually } from '../support/wait.ts';

// A new user's `pnpm start`, nothing configured (no rules file, nothing taught): the four spams issue 52 saw
// delivered to the CRM are held, and seven ordinary enquiries a marketing agency receives are delivered.
// Before, the filter's flag counted half until ops had taught it 20 of each label, so the pharmacy spam, the
// crypto giveaway, the SEO pitch from Gmail and the throwaway address without links all reached the CRM.
// These texts were written as a check, not to tune the filter (docs/benchmarks.md#spam-filter).
let start: StartProcess;
let env: Record<string, string>;
let queue: Queue;

const SPAM = [
  {
    email: 'rxdeals@meds-discount-online.com',
    name: 'Jordan',
    message:
      'Buy viagra and cialis online without prescription! Lowest prices guaranteed, discreet overnight shipping worldwide. Order now and save 80% on generic pills.',
  },
  {
    email: 'giveaway@btc-events.net',
    name: 'Elon Team',
    message:
      "CRYPTO GIVEAWAY! Send 0.1 BTC to our wallet and receive 1 BTC back instantly. Limited time offer, only the first 500 participants qualify. Don't miss out, act now!",
  },
  {
    email: 'rankmaster.seo@gmail.com',
    name: 'Rank Master',
    message:
      'Hello, I was checking your website and noticed it is not ranking on the first page of Google for your main keywords. We are an expert SEO team and can get you top ranking, more traffic and more sales at a very affordable price. Reply to this email for a free audit and our price list.',
  },
  {
    email: 'kx92lm@guerrillamail.com',
    name: 'Mike',
    message:
      'Work from home and earn $5,000 a week with our proven money making system! No experience needed, no risk, 100% guaranteed income. Reply today to get started and claim your free bonus.',
  },
];

const ENQUIRIES = [
  {
    email: 'priya.nair@lumenskin.com',
    name: 'Priya Nair',
    userType: 'brand',
    message:
      'Hi! I lead influencer partnerships at Lumen Skin. We are planning a creator campaign for our spring launch and would love to work with your agency on finding 15 to 20 beauty creators on Instagram and TikTok. Could we set up a call next week to talk about scope and timing?',
  },
  {
    email: 'tom@northfieldcoffee.co.uk',
    name: 'Tom Baker',
    message:
      'Hello, could you send me your pricing for a three month social media package? We are a small coffee roaster with two shops and want help with content and paid ads. Our site is https://northfieldcoffee.co.uk if that helps.',
  },
  {
    email: 'sofia.marques@velaoutdoor.com',
    name: 'Sofia Marques',
    userType: 'brand',
    message:
      'We are a Portuguese outdoor clothing brand launching in Germany this autumn. Do you handle campaigns in German markets, and do you work with micro influencers? Our current lookbook is at https://velaoutdoor.com/lookbook and the brand deck at https://velaoutdoor.com/press.',
  },
  {
    email: 'd.okafor@brightpath.org',
    name: 'Daniel Okafor',
    message:
      'Hi, I am the communications lead at a youth education charity. We have a limited budget but want to run a short awareness campaign in March. Do you offer discounted rates for non profits, and what would a minimum engagement look like?',
  },
  {
    email: 'hannah.lee@gmail.com',
    name: 'Hannah Lee',
    userType: 'creator',
    message:
      "Hi there, I'm a lifestyle creator with about 40k followers and I'd love to be considered for brand collaborations you run. Is there a form or roster I can join? Happy to share my media kit.",
  },
  {
    email: 'marc@studio-rive.fr',
    name: 'Marc Dubois',
    message:
      'Bonjour, we spoke briefly at the Cannes Lions event. Following up on your proposal from last Thursday: our team reviewed it and we have two questions about the reporting and the content approval steps. When would suit you for a 30 minute call?',
  },
  {
    email: 'julia.schmidt@kettleandco.com',
    name: 'Julia Schmidt',
    message:
      'Hello, we received your invoice 2291 for the October campaign but the PO number is missing, so our finance team cannot process it. Could you resend it with PO 4471? Thanks, Julia',
  },
];

beforeAll(async () => {
  const queueName = `untaught-${randomUUID()}`;
  start = await spawnStart({ REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName, SPAM_RULES_FILE: undefined });
  env = { REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName, DATA_DIR: start.dataDir };
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
}, 120_000);
afterAll(async () => {
  await start?.stop();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

async function send(body: object): Promise<string> {
  const res = await fetch(`${start.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200); // held or delivered, the answer is the same
  return ((await res.json()) as { recordId: string }).recordId;
}

it('untaught defaults hold the pharmacy, crypto, webmail SEO and throwaway spams, and deliver seven enquiries', async () => {
  const spam = await Promise.all(SPAM.map(send));
  const enquiries = await Promise.all(ENQUIRIES.map(send));

  // Every one judged: the delivered ones done by the worker (the held ones never become jobs).
  let counts: Record<string, number> = {};
  await eventually(
    async () => {
      counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
      return counts.completed! + counts.failed! >= ENQUIRIES.length && counts.waiting! + counts.active! === 0;
    },
    { timeoutMs: 30_000, explain: () => JSON.stringify(counts) },
  );
  const shown = await Promise.all(enquiries.map((recordId) => runOps(['show', recordId, '--json'], env)));
  for (const run of shown) expect(run.json?.submissions?.[0]?.state, run.stdout + run.stderr).toBe('delivered');

  const list = await runOps(['spam', 'list', '--json'], env);
  expect(list.code, list.stderr).toBe(0);
  const held = list.json.submissions as { recordId: string; reasons: string[] }[];
  const why = held.map((s) => `${s.recordId}: ${s.reasons.join(' + ')}`).join('\n');
  expect(held.map((s) => s.recordId).sort(), why).toEqual([...spam].sort());
}, 90_000);

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendJsonFromFreshClient } from '../support/http.ts';
import { judged, spamMetric } from '../support/judged.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { type Provider, type Siteverify, startSiteverify } from '../support/siteverify-server.ts';
import { spamRulesFile } from '../support/spam-rules-file.ts';
import { validBody } from '../support/valid-bodies.ts';

// Challenge tokens, verified through the provider's siteverify (a local server speaking its documented
// shapes): `contact` requires one, `creator-signup` scores one. A bot without a token, with a made-up one
// or with one used before is held with the provider's reason and answered like a success; a person with a
// fresh token goes through; a provider that is down or slow holds nobody (the layer abstains, counted).
const TOKEN = 'challenge-metrics-token-0123456789abcdef';
const SECRET = 'test-secret-0x0000';
const TIMEOUT_MS = 1_000;
async function post(pipeline: Pipeline, path: string, body: object, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await sendJsonFromFreshClient(`${pipeline.gateway.url}${path}`, body, headers);
  return { status: res.status, body: res.body as { recordId: string }, ip: res.ip, ms: performance.now() - started };
}

async function held(pipeline: Pipeline): Promise<Map<string, { reasons: string[]; agent?: string }>> {
  const { json, code, stderr } = await runOps(['spam', 'list', '--json'], pipeline.env);
  expect(code, stderr).toBe(0);
  return new Map(json.submissions.map((s: { id: string; reasons: string[]; agent?: string }) => [s.id, s]));
}

describe.each([
  ['turnstile', 'cf-turnstile-response'],
  ['hcaptcha', 'h-captcha-response'],
  ['recaptcha', 'g-recaptcha-response'],
] as const)('%s', (provider: Provider, field) => {
  let siteverify: Siteverify;
  let pipeline: Pipeline;
  beforeAll(async () => {
    siteverify = await startSiteverify(provider, SECRET);
    pipeline = await startPipeline({
      ADMIN_TOKEN: TOKEN,
      TRUST_PROXY: 'true',
      SPAM_RULES_FILE: spamRulesFile({
        // The link rules as a site whose people send no links sets them (the defaults count no links).
        '*': { maxLinks: 8, suspectLinks: 2 },
        contact: { challenge: 'required', keywords: ['pharmacy'] },
        'creator-signup': { challenge: 'scored' },
      }),
      CHALLENGE_PROVIDER: provider,
      CHALLENGE_SECRET: SECRET,
      CHALLENGE_VERIFY_URL: siteverify.url,
      CHALLENGE_TIMEOUT_MS: String(TIMEOUT_MS),
      METRICS_PORT: '0',
    });
  });
  afterAll(async () => {
    await pipeline?.stop();
    await siteverify?.stop();
  });
  beforeEach(() => {
    siteverify.fault.mode = 'none';
  });

  const contact = () => validBody('contact', `c-${randomUUID()}`);

  it('a person with a fresh token is queued; siteverify got the secret, the token and the client address, form-encoded', async () => {
    const token = siteverify.issue({ score: 0.9 });
    const sent = await post(pipeline, '/api/contact', { ...contact(), [field]: token });
    expect(sent.status).toBe(200);
    expect(await judged(pipeline.queue)).toEqual({ delivered: 1 });
    expect(siteverify.requests.at(-1)).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      secret: SECRET,
      response: token,
      remoteip: sent.ip,
    });
    expect((await held(pipeline)).size).toBe(0);
  });

  it('no token, a made-up token, and a token used before are each held with their reason, answered like a success', async () => {
    const reused = siteverify.issue({ score: 0.9 });
    expect((await post(pipeline, '/api/contact', { ...contact(), [field]: reused })).status).toBe(200);
    const queued = (await judged(pipeline.queue)).delivered;
    const bots = [
      await post(pipeline, '/api/contact', contact()),
      await post(pipeline, '/api/contact', { ...contact(), [field]: 'XXXX.DUMMY.TOKEN.XXXX' }),
      await post(pipeline, '/api/contact', { ...contact(), [field]: reused }),
    ];
    expect(bots.map((b) => b.status)).toEqual([200, 200, 200]);
    expect((await judged(pipeline.queue)).delivered).toBe(queued);
    const quarantine = [...(await held(pipeline)).values()] as unknown as { recordId: string; reasons: string[] }[];
    const spent = provider === 'hcaptcha' ? 'invalid-or-already-seen-response' : 'timeout-or-duplicate';
    expect(bots.map((b) => quarantine.find((q) => q.recordId === b.body.recordId)?.reasons)).toEqual([
      ['challenge:missing-token'],
      ['challenge:invalid-input-response'],
      [`challenge:${spent}`],
    ]);
    expect(quarantine.length).toBe(3);
    await runOps(['spam', 'purge', '--all', '--yes'], pipeline.env);
  });

  it('a provider that is down, slow past the deadline, or garbled holds nobody: the layer abstains, counted', async () => {
    const before = (await judged(pipeline.queue)).delivered;
    for (const mode of ['down', 'slow', 'garbled'] as const) {
      siteverify.fault.mode = mode;
      siteverify.fault.slowMs = 4_000;
      const sent = await post(pipeline, '/api/contact', { ...contact(), [field]: siteverify.issue() });
      expect(sent.status).toBe(200);
      // The answer never waits for the provider; the judge's wait is bounded by CHALLENGE_TIMEOUT_MS (1 s).
      if (mode === 'slow') expect(sent.ms).toBeLessThan(TIMEOUT_MS);
      expect((await judged(pipeline.queue)).delivered).toBe(before + ['down', 'slow', 'garbled'].indexOf(mode) + 1);
    }
    expect((await held(pipeline)).size).toBe(0);
    expect(await spamMetric(pipeline, TOKEN, 'forms_spam_layer_unavailable_total', { layer: 'challenge' })).toBe(3);
  });

  // What does not depend on the provider (the scored challenge, agents, the issue's bot), for one of them: the
  // others' siteverify differs only in the field and the answer, which the cases above prove for each.
  if (provider === 'turnstile') {
    it('scored: a missing token alone holds nothing; with two links (another half) it is held', async () => {
      const signup = () => validBody('creator-signup', `s-${randomUUID()}`);
      const alone = await post(pipeline, '/api/creator-signup', signup());
      const withLinks = await post(pipeline, '/api/creator-signup', {
        ...signup(),
        name: 'see https://a.example and https://b.example',
      });
      expect([alone.status, withLinks.status]).toEqual([200, 200]);
      await judged(pipeline.queue);
      const quarantine = await held(pipeline);
      expect([...quarantine.values()].map((s) => s.reasons)).toEqual([['rules:links (2)', 'challenge:missing-token']]);
      await runOps(['spam', 'purge', '--all', '--yes'], pipeline.env);
    });

    it('an agent (Forms-Agent header) is asked no challenge: queued without a token; held only by the content layers, marked as its own', async () => {
      const calls = siteverify.requests.length;
      const before = (await judged(pipeline.queue)).delivered;
      const agent = await post(pipeline, '/api/contact', contact(), { 'forms-agent': 'claude-desktop' });
      expect(agent.status).toBe(200);
      expect((await judged(pipeline.queue)).delivered).toBe(before + 1);
      const stuffed = await post(
        pipeline,
        '/api/contact',
        { email: `x-${randomUUID()}@mailinator.com`, message: 'https://a.example https://b.example' },
        { 'forms-agent': 'some-agent' },
      );
      await judged(pipeline.queue);
      expect(siteverify.requests.length).toBe(calls);
      const row = await findHeld(pipeline, stuffed.body.recordId);
      expect(row).toMatchObject({ agent: 'some-agent', reasons: ['rules:disposable-domain', 'rules:links (2)'] });
      const verdicts = (verdict: string) =>
        spamMetric(pipeline, TOKEN, 'forms_spam_verdicts_total', { verdict, sender: 'agent' });
      expect(await verdicts('ham')).toBe(1);
      expect(await verdicts('spam')).toBe(1);
      await runOps(['spam', 'purge', '--all', '--yes'], pipeline.env);
    });

    it("the issue's bot (no honeypot, ten links, no token, a throwaway address, a blocked keyword) is held with every reason; release queues it once", async () => {
      const calls = siteverify.requests.length;
      const links = Array.from({ length: 10 }, (_, i) => `https://pharmacy-${i}.example`).join(' ');
      const bot = await post(pipeline, '/api/contact', {
        email: `rx-${randomUUID()}@mailinator.com`,
        message: `Cheap pharmacy: ${links}`,
      });
      expect(bot.status).toBe(200);
      await judged(pipeline.queue);
      const row = await findHeld(pipeline, bot.body.recordId);
      expect(row?.reasons).toEqual([
        'rules:disposable-domain',
        'rules:too-many-links (10 > 8)',
        'rules:keyword (pharmacy)',
        'challenge:missing-token',
      ]);
      expect(siteverify.requests.length).toBe(calls); // no token, no call
      const id = row!.id;
      const before = (await judged(pipeline.queue)).delivered;
      await runOps(['spam', 'release', id], pipeline.env);
      await runOps(['spam', 'release', id], pipeline.env);
      // Released, it is delivered without being judged again (ops decided).
      expect((await judged(pipeline.queue)).delivered).toBe(before + 1);
    });
  }

  if (provider === 'recaptcha')
    it('v3: a token scored below CHALLENGE_MIN_SCORE (0.5) is held with its score; v2 (no score) passes', async () => {
      const low = await post(pipeline, '/api/contact', { ...contact(), [field]: siteverify.issue({ score: 0.1 }) });
      const v2 = await post(pipeline, '/api/contact', { ...contact(), [field]: siteverify.issue() });
      expect([low.status, v2.status]).toEqual([200, 200]);
      await judged(pipeline.queue);
      const quarantine = await held(pipeline);
      expect([...quarantine.values()].map((s) => s.reasons)).toEqual([['challenge:low-score (score 0.1 < 0.5)']]);
      await runOps(['spam', 'purge', '--all', '--yes'], pipeline.env);
    });
});

/** The quarantined submission a bot was answered with (by the recordId it was answered). */
async function findHeld(pipeline: Pipeline, recordId: string) {
  const { json } = await runOps(['spam', 'list', '--json'], pipeline.env);
  return (json.submissions as { id: string; recordId: string; reasons: string[]; agent?: string }[]).find(
    (s) => s.recordId === recordId,
  );
}

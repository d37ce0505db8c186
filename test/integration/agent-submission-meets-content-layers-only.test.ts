import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { judged } from '../support/judged.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { type Siteverify, startSiteverify } from '../support/siteverify-server.ts';
import { spamRulesFile } from '../support/spam-rules-file.ts';

// An agent has no challenge to solve. Through the official MCP client it is shown the contact form (the
// endpoint and fields), and submits as the form's widget does, declaring itself (`Forms-Agent`): on a form
// that requires a challenge, its real submission is queued, not silently quarantined; its spam still meets
// the content layers and is held, marked as the agent's.
let siteverify: Siteverify;
let pipeline: Pipeline;

beforeAll(async () => {
  siteverify = await startSiteverify('turnstile', 'agent-secret');
  pipeline = await startPipeline({
    SPAM_RULES_FILE: spamRulesFile({ contact: { challenge: 'required', maxLinks: 8 } }),
    CHALLENGE_PROVIDER: 'turnstile',
    CHALLENGE_SECRET: 'agent-secret',
    CHALLENGE_VERIFY_URL: siteverify.url,
  });
});
afterAll(async () => {
  await pipeline?.stop();
  await siteverify?.stop();
});

it("an agent's contact through the MCP contact form is queued without a challenge; its spam is held as the agent's", async () => {
  const client = new Client({ name: 'spam-policy-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${pipeline.gateway.url}/api/mcp`)));
  const shown = await client.callTool({ name: 'show_contact_form', arguments: { userType: 'brand' } });
  await client.close();
  const form = shown.structuredContent as { endpoint: string; method: string; fields: { name: string }[] };
  expect(form.method).toBe('POST');
  expect(form.fields.map((f) => f.name)).toContain('email');
  const endpoint = `${pipeline.gateway.url}${new URL(form.endpoint).pathname}`;

  const submit = (body: object) =>
    fetch(endpoint, {
      method: form.method,
      headers: { 'content-type': 'application/json', 'forms-agent': 'spam-policy-agent' },
      body: JSON.stringify(body),
    });
  const real = await submit({
    email: `ada-${randomUUID()}@acme.io`,
    name: 'Ada',
    userType: 'brand',
    message: 'My user would like a call about a creator campaign next month.',
  });
  expect(real.status).toBe(200);
  expect((await judged(pipeline.queue)).delivered).toBe(1);
  expect(siteverify.requests).toEqual([]);

  const spam = await submit({
    email: `pills-${randomUUID()}@mailinator.com`,
    message: Array.from({ length: 10 }, (_, i) => `https://pills-${i}.example`).join(' '),
  });
  expect(spam.status).toBe(200);
  expect((await judged(pipeline.queue)).delivered).toBe(1);
  const held = await runOps(['spam', 'list', '--json'], pipeline.env);
  expect(held.json.submissions).toEqual([
    expect.objectContaining({
      agent: 'spam-policy-agent',
      reasons: ['rules:disposable-domain', 'rules:too-many-links (10 > 8)'],
    }),
  ]);
  // The same real message without the declaration is a bot's on this form: held for its missing token.
  const undeclared = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bob-${randomUUID()}@acme.io`, message: 'No widget, no declaration.' }),
  });
  expect(undeclared.status).toBe(200);
  expect((await runOps(['spam', 'list', '--json'], pipeline.env)).json.count).toBe(2);
});

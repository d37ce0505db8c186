import { createHash } from 'node:crypto';
import type { RunningGateway } from '@forms/gateway';
import { DISCOVERY_FILES, ERROR_CODES, SUBMISSION_ENDPOINTS, WIDGET_NAMES } from '@forms/schemas';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkedFetch, openApiResponseCheck } from '../support/openapi-validator.ts';
import { startTestGateway } from '../support/test-gateway.ts';
import { validBody } from '../support/valid-bodies.ts';

let gateway: RunningGateway;
let spec: Record<string, any>;
const seen: string[] = [];
let http: typeof fetch;

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), {}, { selfBaseUrl: true });
  spec = await (await fetch(`${gateway.url}/openapi.json`)).json();
  // Checked against the document the gateway serves, not one built in the test.
  http = checkedFetch(openApiResponseCheck(spec), seen);
});
afterAll(async () => {
  await gateway?.stop();
});

describe('/openapi.json', () => {
  it('passes the Redocly OpenAPI 3.1 linter (recommended rules) with no problem', async () => {
    // Static files have no failure answer to document, so "every operation has a 4XX" does not apply.
    const config = await createConfig({ extends: ['recommended'], rules: { 'operation-4xx-response': 'off' } });
    const problems = await lintFromString({
      source: JSON.stringify(spec),
      absoluteRef: `${gateway.url}/openapi.json`,
      config,
    });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('describes every endpoint and every error code of the code tables', () => {
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.servers).toEqual([{ url: gateway.url }]);
    for (const e of SUBMISSION_ENDPOINTS) expect(spec.paths[e.path][e.method.toLowerCase()], e.path).toBeDefined();
    for (const path of [
      '/api/latest-video',
      '/api/mcp',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/ui/{name}.html',
      ...DISCOVERY_FILES.map((f) => f.path),
    ]) {
      expect(spec.paths[path], path).toBeDefined();
    }
    expect(spec.paths['/api/mcp']).toHaveProperty('get');
    expect(spec.paths['/api/mcp']).toHaveProperty('post');
    expect(spec.paths['/api/mcp']).toHaveProperty('delete');
    expect(spec['x-error-codes'].map((row: { code: string }) => row.code)).toEqual(Object.keys(ERROR_CODES));
    expect(spec.components.schemas.Error.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
    for (const name of [
      'LatestVideo',
      'JsonRpcRequest',
      'McpDescriptor',
      'SimpleError',
      ...SUBMISSION_ENDPOINTS.flatMap((e) => [e.requestName, e.responseName]),
    ]) {
      expect(spec.components.schemas[name], name).toBeDefined();
    }
  });

  it('the check rejects a response that breaks the document', () => {
    const check = openApiResponseCheck(spec);
    const headers = new Headers({ 'content-type': 'application/json' });
    expect(() => check('POST', `${gateway.url}/api/contact`, 200, headers, JSON.stringify({ success: true }))).toThrow(
      /ContactResponse/,
    );
    expect(() => check('GET', `${gateway.url}/api/latest-video`, 418, headers, '{}')).toThrow(/status not in/);
    expect(() => check('GET', `${gateway.url}/nowhere`, 200, headers, '{}')).toThrow(/path not in/);
  });
});

describe('every answer of the HTTP surface validates against /openapi.json', () => {
  it('submissions: accepted, rejected, wrong method, wrong type', async () => {
    for (const e of SUBMISSION_ENDPOINTS) {
      const url = `${gateway.url}${e.path}`;
      const ok = await http(url, {
        method: e.method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(validBody(e.kind, `oa-${Date.now()}`)),
      });
      expect(ok.status, e.path).toBe(200);
      expect(
        (await http(url, { method: e.method, headers: { 'content-type': 'application/json' }, body: '{}' })).status,
      ).toBe(400);
      expect(
        (await http(url, { method: e.method, headers: { 'content-type': 'application/json' }, body: '{"email":' }))
          .status,
      ).toBe(400);
      expect(
        (await http(url, { method: e.method, headers: { 'content-type': 'text/plain' }, body: 'hi' })).status,
      ).toBe(415);
      expect((await http(url, { method: 'GET' })).status).toBe(405);
      // The same body as a plain form's, in both media types the operation lists (issue 48).
      const content = spec.paths[e.path][e.method.toLowerCase()].requestBody.content;
      expect(Object.keys(content)).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
      ]);
      const fields = Object.entries(validBody(e.kind, `oa-form-${Date.now()}`)).filter(([k]) => k !== 'cvFile');
      const form = new URLSearchParams(fields.map(([k, v]) => [k, String(v)]));
      expect((await http(url, { method: e.method, body: form })).status, e.path).toBe(200);
      const multipart = new FormData();
      for (const [k, v] of fields) multipart.append(k, String(v));
      expect((await http(url, { method: e.method, body: multipart })).status, e.path).toBe(200);
      expect((await http(url, { method: e.method, body: new URLSearchParams({ x: '1' }) })).status).toBe(400);
    }
  });

  it('discovery files: content types from the table, ETag and Cache-Control, 304 on revalidation', async () => {
    for (const file of DISCOVERY_FILES) {
      const res = await http(`${gateway.url}${file.path}`);
      expect(res.status, file.path).toBe(200);
      expect(res.headers.get('content-type')).toBe(
        file.contentType.replace('application/json', 'application/json; charset=utf-8'),
      );
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await http(`${gateway.url}${file.path}`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
  });

  it('the agent-skills index points at documents whose sha256 matches', async () => {
    const index = await (await http(`${gateway.url}/.well-known/agent-skills/index.json`)).json();
    expect(index.skills.length).toBeGreaterThan(0);
    for (const skill of index.skills) {
      const body = await (await http(`${gateway.url}${skill.url}`)).text();
      expect(skill.digest).toBe(`sha256:${createHash('sha256').update(body).digest('hex')}`);
      expect(body).toMatch(new RegExp(`^---\\nname: ${skill.name}\\ndescription: `));
    }
  });

  it('llms.txt has the llmstxt.org shape; robots.txt names AI crawlers; the MCP manifest lists the ui:// resources', async () => {
    const llms = await (await http(`${gateway.url}/llms.txt`)).text();
    expect(llms).toMatch(/^# .+\n\n> .+\n/);
    expect(llms).toMatch(/\n## [^\n]+\n\n- \[[^\]]+\]\(http[^)]+\)/);
    expect(llms).not.toMatch(/\{base_url\}|<CONTACT_EMAIL>/);
    const robots = await (await http(`${gateway.url}/robots.txt`)).text();
    for (const bot of ['GPTBot', 'ClaudeBot', 'OAI-SearchBot', 'ChatGPT-User', 'Claude-User', 'PerplexityBot'])
      expect(robots).toContain(`User-agent: ${bot}`);
    expect(robots).toContain(`Sitemap: ${gateway.url}/sitemap.xml`);
    const manifest = await (await http(`${gateway.url}/.well-known/mcp/manifest.json`)).json();
    expect(manifest.resources.map((r: { uri: string }) => r.uri)).toEqual(
      expect.arrayContaining(WIDGET_NAMES.map((n) => `ui://service/${n}`)),
    );
    const card = await (await http(`${gateway.url}/.well-known/agent-card.json`)).json();
    expect(card).toMatchObject({ url: `${gateway.url}/api/mcp`, capabilities: { streaming: false } });
    for (const path of ['/llms-full.txt', '/pricing.md', '/agents.md', '/comparisons.md']) {
      const text = await (await http(`${gateway.url}${path}`)).text();
      expect(text, path).toContain('partnerships@agency.test');
      expect(text, path).not.toMatch(/\{base_url\}|<CONTACT_EMAIL>/);
    }
  });

  it('/docs is made from the document and has an #errors anchor listing every code', async () => {
    const res = await http(`${gateway.url}/docs`);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('id="errors"');
    for (const code of Object.keys(ERROR_CODES)) expect(html).toContain(`id="${code}"`);
    for (const e of SUBMISSION_ENDPOINTS) expect(html).toContain(`<code>${e.path}</code>`);
  });

  it('health, widgets and an unconfigured latest video', async () => {
    expect((await http(`${gateway.url}/healthz`)).status).toBe(200);
    expect((await http(`${gateway.url}/readyz`)).status).toBe(200);
    for (const name of WIDGET_NAMES) expect((await http(`${gateway.url}/ui/${name}.html`)).status).toBe(200);
    const video = await http(`${gateway.url}/api/latest-video`);
    expect(video.status).toBe(502);
    expect((await http(`${gateway.url}/api/latest-video`, { method: 'POST' })).status).toBe(405);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningGateway } from '@forms/gateway';
import { AGENT_SKILL_NAMES, DISCOVERY_FILES, SUBMISSION_ENDPOINTS, WIDGET_NAMES } from '@forms/schemas';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PrismProxy, startPrismProxy } from '../support/prism-proxy.ts';
import { startTestGateway } from '../support/test-gateway.ts';
import { validBody } from '../support/valid-bodies.ts';

// Issue 14: Prism, a third-party validator, in front of the gateway checks every live answer against the
// served /openapi.json, so a drift between document and behaviour fails CI. It also says whether each
// request is valid by the document: the valid ones must be, and the ones meant to be invalid must be too.
let gateway: RunningGateway;
let prism: PrismProxy;
let dir: string;

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), {}, { selfBaseUrl: true });
  dir = await mkdtemp(join(tmpdir(), 'prism-'));
  const file = join(dir, 'openapi.json');
  await writeFile(file, await (await fetch(`${gateway.url}/openapi.json`)).text());
  prism = await startPrismProxy(file, gateway.url);
}, 90_000);
afterAll(async () => {
  await prism?.stop();
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

type Case = {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  /** Whether the document itself calls the request valid (Prism's `request` findings). */
  documentValid: boolean;
};

const json = { 'content-type': 'application/json' };

function submissionCases(): Case[] {
  return SUBMISSION_ENDPOINTS.flatMap((e): Case[] => {
    const valid = validBody(e.kind, `prism-${Date.now()}`);
    const base = { method: e.method, path: e.path, headers: json };
    const cases: Case[] = [
      { ...base, name: `${e.kind} valid`, body: JSON.stringify(valid), status: 200, documentValid: true },
      { ...base, name: `${e.kind} empty object`, body: '{}', status: 400, documentValid: false },
      {
        ...base,
        name: `${e.kind} email of the wrong type`,
        body: JSON.stringify({ ...valid, [e.emailField]: 42 }),
        status: 400,
        documentValid: false,
      },
      {
        ...base,
        name: `${e.kind} email outside the pattern`,
        body: JSON.stringify({ ...valid, [e.emailField]: 'a@globex-brands.c' }),
        status: 400,
        documentValid: false,
      },
      {
        ...base,
        name: `${e.kind} unknown fields and __proto__ dropped`,
        body: JSON.stringify({ ...valid, extra: { deep: [1, 2] } }).replace('{', '{"__proto__":{"x":1},'),
        status: 200,
        documentValid: true,
      },
    ];
    if (e.workEmailOnly)
      cases.push({
        ...base,
        name: `${e.kind} personal address (the description says it is refused)`,
        body: JSON.stringify({ ...valid, [e.emailField]: 'someone@gmail.com' }),
        status: 400,
        documentValid: true,
      });
    return cases;
  });
}

function agentCases(): Case[] {
  const rpc = (body: unknown, extra: Record<string, string> = {}) => ({
    method: 'POST',
    path: '/api/mcp',
    headers: { ...json, accept: 'application/json, text/event-stream', ...extra },
    body: JSON.stringify(body),
  });
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'prism', version: '1' } },
  };
  return [
    { name: 'mcp initialize', ...rpc(init), status: 200, documentValid: true },
    {
      name: 'mcp tools/list',
      ...rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      status: 200,
      documentValid: true,
    },
    {
      name: 'mcp resources/templates/list',
      ...rpc({ jsonrpc: '2.0', id: 3, method: 'resources/templates/list' }),
      status: 200,
      documentValid: true,
    },
    {
      name: 'mcp unknown method',
      ...rpc({ jsonrpc: '2.0', id: 4, method: 'no/such' }),
      status: 200,
      documentValid: true,
    },
    {
      name: 'mcp notification',
      ...rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      status: 202,
      documentValid: true,
    },
    {
      name: 'mcp method over 200 characters',
      ...rpc({ jsonrpc: '2.0', id: 5, method: 'x'.repeat(201) }),
      status: 400,
      documentValid: false,
    },
    { name: 'mcp null id', ...rpc({ jsonrpc: '2.0', id: null, method: 'ping' }), status: 400, documentValid: false },
    {
      name: 'mcp unsupported protocol version',
      ...rpc({ jsonrpc: '2.0', id: 6, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' }),
      status: 400,
      documentValid: true,
    },
    {
      name: 'mcp forbidden origin',
      ...rpc({ jsonrpc: '2.0', id: 7, method: 'ping' }, { origin: 'https://evil.example' }),
      status: 403,
      documentValid: true,
    },
    {
      name: 'mcp descriptor',
      method: 'GET',
      path: '/api/mcp',
      headers: { accept: 'application/json' },
      status: 200,
      documentValid: true,
    },
    {
      name: 'mcp event stream refused',
      method: 'GET',
      path: '/api/mcp',
      headers: { accept: 'text/event-stream' },
      status: 405,
      documentValid: true,
    },
    { name: 'mcp delete', method: 'DELETE', path: '/api/mcp', status: 204, documentValid: true },
    { name: 'latest video unconfigured', method: 'GET', path: '/api/latest-video', status: 502, documentValid: true },
    { name: 'healthz', method: 'GET', path: '/healthz', status: 200, documentValid: true },
    { name: 'readyz', method: 'GET', path: '/readyz', status: 200, documentValid: true },
    { name: 'openapi', method: 'GET', path: '/openapi.json', status: 200, documentValid: true },
    { name: 'docs', method: 'GET', path: '/docs', status: 200, documentValid: true },
    ...DISCOVERY_FILES.map((f) => ({ name: f.path, method: 'GET', path: f.path, status: 200, documentValid: true })),
    ...WIDGET_NAMES.map((n) => ({
      name: `widget ${n}`,
      method: 'GET',
      path: `/ui/${n}.html`,
      status: 200,
      documentValid: true,
    })),
    ...AGENT_SKILL_NAMES.map((n) => ({
      name: `skill ${n}`,
      method: 'GET',
      path: `/.well-known/agent-skills/${n}/SKILL.md`,
      status: 200,
      documentValid: true,
    })),
  ];
}

type Violation = { location: string[]; severity: string; code: string; message: string };

describe('Prism proxy validates every live answer against /openapi.json', () => {
  it('finds no response that breaks the document, for valid and invalid requests on every endpoint', async () => {
    const cases = [...submissionCases(), ...agentCases()];
    const report: string[] = [];
    for (const c of cases) {
      const res = await fetch(`${prism.url}${c.path}`, {
        method: c.method,
        headers: c.headers ?? {},
        ...(c.body === undefined ? {} : { body: c.body }),
      });
      const text = await res.text();
      const header = res.headers.get('sl-violations');
      const violations: Violation[] = header ? JSON.parse(header.replace(/^Too many violations! /, '')) : [];
      const response = violations.filter((v) => v.location[0] === 'response');
      const request = violations.filter((v) => v.location[0] === 'request' && v.severity === 'Error');
      if (res.status !== c.status)
        report.push(`${c.name}: status ${res.status}, expected ${c.status}: ${text.slice(0, 300)}`);
      for (const v of response) report.push(`${c.name}: response ${v.location.join('.')} ${v.message}`);
      if (c.documentValid && request.length > 0)
        report.push(
          `${c.name}: a request meant to be valid breaks the document: ${request.map((v) => `${v.location.join('.')} ${v.message}`).join('; ')}`,
        );
      if (!c.documentValid && request.length === 0)
        report.push(`${c.name}: a request meant to be invalid passes the document`);
    }
    expect(report, prism.log().slice(-2_000)).toEqual([]);
    console.info(`prism: ${cases.length} requests, 0 violations`);
  }, 120_000);
});

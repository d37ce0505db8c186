import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  CareersApplyRequestSchema,
  ContactRequestSchema,
  ContactUpdateRequestSchema,
  EMAIL_MAX,
  HONEYPOT_FIELD,
  JOBS,
  LONG_MAX,
  PartnerWebinarRequestSchema,
  RETRY_POLICY,
  retryDelay,
  SHORT_MAX,
  SUBMISSION_ENDPOINTS,
  UsaSignupRequestSchema,
} from './index.ts';

function issueOf(schema: v.GenericSchema, input: unknown) {
  const result = v.safeParse(schema, input);
  expect(result.success).toBe(false);
  return result.issues![0]!;
}

describe('request schemas', () => {
  it('drop unknown fields', () => {
    const out = v.parse(ContactRequestSchema, { email: 'a@b.co', admin: true, __proto__x: 1 });
    expect(out).toEqual({ email: 'a@b.co' });
  });

  it('require email and validate its format on every endpoint', () => {
    for (const endpoint of SUBMISSION_ENDPOINTS) {
      const missing = issueOf(endpoint.request, {});
      expect(missing.input).toBeUndefined();
      const valid = { name: 'N', role: 'R', fullName: 'F', email: 'x@acme.io', workEmail: 'x@acme.io' };
      const bad = { ...valid, [endpoint.emailField]: 'not-an-email' };
      // EMAIL_PATTERN, the rule /openapi.json states as the field's `pattern`
      expect(issueOf(endpoint.request, bad).type).toBe('regex');
      expect(v.safeParse(endpoint.request, valid).success).toBe(true);
    }
  });

  it('cap string lengths, in code points as JSON Schema counts maxLength', () => {
    expect(issueOf(ContactRequestSchema, { email: `${'a'.repeat(EMAIL_MAX)}@b.co` }).type).toBe('max_code_points');
    expect(issueOf(ContactRequestSchema, { email: 'a@b.co', name: 'n'.repeat(SHORT_MAX + 1) }).type).toBe(
      'max_code_points',
    );
    expect(issueOf(ContactRequestSchema, { email: 'a@b.co', message: 'm'.repeat(LONG_MAX + 1) }).type).toBe(
      'max_code_points',
    );
    expect(v.safeParse(ContactRequestSchema, { email: 'a@b.co', message: 'm'.repeat(LONG_MAX) }).success).toBe(true);
    // 200 emoji are 400 UTF-16 units and 200 code points: within the cap.
    expect(v.safeParse(ContactRequestSchema, { email: 'a@b.co', name: '😀'.repeat(SHORT_MAX) }).success).toBe(true);
    expect(issueOf(ContactRequestSchema, { email: 'a@b.co', name: '😀'.repeat(SHORT_MAX + 1) }).type).toBe(
      'max_code_points',
    );
  });

  it('accept "boolean or string" and "integer or string" in both forms', () => {
    for (const input of [
      { usingInfluencers: true, influencersPerMonth: 12, planOnUsingInfluencers: false },
      { usingInfluencers: 'yes', influencersPerMonth: '10-20', planOnUsingInfluencers: 'maybe' },
    ]) {
      expect(v.parse(ContactUpdateRequestSchema, { email: 'a@b.co', ...input })).toEqual({ email: 'a@b.co', ...input });
    }
    expect(issueOf(ContactUpdateRequestSchema, { email: 'a@b.co', influencersPerMonth: 2.5 }).type).toBe('integer');
    expect(issueOf(ContactUpdateRequestSchema, { email: 'a@b.co', usingInfluencers: 1 }).type).toBe('union');
  });

  it('type-check booleans and required text', () => {
    expect(issueOf(UsaSignupRequestSchema, { email: 'a@b.co', already_working_with_influencers: 'yes' }).type).toBe(
      'boolean',
    );
    expect(issueOf(PartnerWebinarRequestSchema, { workEmail: 'a@b.co' }).path![0]!.key).toBe('fullName');
    expect(issueOf(CareersApplyRequestSchema, { email: 'a@b.co', name: 'N' }).path![0]!.key).toBe('role');
    const cv = { filename: 'cv.txt', contentType: 'text/plain', data: 'aGk=' };
    expect(issueOf(CareersApplyRequestSchema, { email: 'a@b.co', name: 'N', role: 'R', cvFile: cv }).type).toBe(
      'picklist',
    );
  });
});

describe('job catalog', () => {
  it('has one versioned job per endpoint', () => {
    expect(Object.keys(JOBS).sort()).toEqual(SUBMISSION_ENDPOINTS.map((e) => `${e.kind}.v1`).sort());
  });

  it('never lets CV bytes into a careers job', () => {
    const job = {
      v: 1,
      submissionId: 'sub_1',
      recordId: 'sub_1',
      kind: 'careers-apply',
      acceptedAt: new Date().toISOString(),
    };
    const data = {
      name: 'N',
      email: 'a@b.co',
      role: 'R',
      cvFile: { filename: 'a.pdf', contentType: 'application/pdf', data: 'JVBERi0=' },
    };
    const out = v.parse(JOBS['careers-apply.v1'], { ...job, data });
    expect(out.data).not.toHaveProperty('cvFile');
  });
});

describe('retryDelay', () => {
  it('doubles from the base to the cap with equal jitter', () => {
    expect(retryDelay(1, {}, () => 0)).toBe(RETRY_POLICY.baseDelayMs / 2);
    expect(retryDelay(1, {}, () => 1)).toBe(RETRY_POLICY.baseDelayMs);
    expect(retryDelay(4, {}, () => 1)).toBe(RETRY_POLICY.baseDelayMs * 8);
    expect(retryDelay(30, {}, () => 1)).toBe(RETRY_POLICY.maxDelayMs);
  });

  it('reaches several hours over the whole schedule', () => {
    let min = 0;
    let max = 0;
    for (let n = 1; n < RETRY_POLICY.attempts; n++) {
      min += retryDelay(n, {}, () => 0);
      max += retryDelay(n, {}, () => 1);
    }
    expect(min / 3_600_000).toBeGreaterThan(2);
    expect(max / 3_600_000).toBeLessThan(5);
  });
});

describe('honeypot field', () => {
  it('is no real field of any endpoint, so a filled one can only be a bot', () => {
    for (const endpoint of SUBMISSION_ENDPOINTS) {
      expect('entries' in endpoint.request).toBe(true);
      expect(Object.keys('entries' in endpoint.request ? endpoint.request.entries : {})).not.toContain(HONEYPOT_FIELD);
    }
  });
});

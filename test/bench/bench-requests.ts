import { HONEYPOT_FIELD, SUBMISSION_ENDPOINTS, type SubmissionKind } from '@forms/schemas';
import type autocannon from 'autocannon';
import { validBody } from '../support/valid-bodies.ts';

/** Share of each kind in the mixed runs, in twentieths: contact forms and signups dominate a launch. */
const MIX: Record<SubmissionKind, number> = {
  contact: 5,
  'contact-update': 2,
  'cpa-signup': 2,
  'caf-signup': 2,
  'cdg-signup': 1,
  'sfa-signup': 1,
  'rebriefing-signup': 1,
  'usa-signup': 1,
  'creator-signup': 3,
  'careers-apply': 1,
  'partner-webinar': 1,
};

/** Clients the load comes from (X-Forwarded-For; the gateway runs with TRUST_PROXY=true). */
export const BENCH_CLIENTS = 1_000;

let n = 0;
/** BENCH_IDEMPOTENCY=1: every request carries a fresh Idempotency-Key, as @forms/client sends with each submission. */
const withKeys = process.env.BENCH_IDEMPOTENCY === '1';

/**
 * An autocannon request for `kind` with a new email each time (every contact request claims a new
 * contact id, every request enqueues), the empty honeypot field a site's form sends, and one of
 * BENCH_CLIENTS client addresses, so the per-client limit does its real work at its default setting.
 */
export function benchRequest(kind: SubmissionKind, tag = 'bench'): autocannon.Request {
  const endpoint = SUBMISSION_ENDPOINTS.find((e) => e.kind === kind)!;
  return {
    method: endpoint.method,
    path: endpoint.path,
    setupRequest: (req) => {
      const i = n++;
      const client = i % BENCH_CLIENTS;
      return {
        ...req,
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': `10.0.${client >> 8}.${client & 255}`,
          ...(withKeys ? { 'idempotency-key': `${tag}-${process.pid}-${i}` } : {}),
        },
        body: JSON.stringify({ ...validBody(kind, `${tag}-${i}`), [HONEYPOT_FIELD]: '' }),
      };
    },
  };
}

/** Twenty requests in the proportions of MIX; autocannon cycles through them on each connection. */
export function mixedRequests(tag?: string): autocannon.Request[] {
  return Object.entries(MIX).flatMap(([kind, weight]) =>
    Array.from({ length: weight }, () => benchRequest(kind as SubmissionKind, tag)),
  );
}

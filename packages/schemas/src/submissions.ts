import * as v from 'valibot';
import { CareersApplyRequestSchema } from './careers-apply.ts';
import { ContactUpdateRequestSchema } from './contact-update.ts';
import { ContactRequestSchema } from './contact.ts';
import { CreatorSignupRequestSchema } from './creator-signup.ts';
import { PartnerWebinarRequestSchema } from './partner-webinar.ts';
import {
  BasicSignupResponseSchema,
  CareersApplyResponseSchema,
  ContactResponseSchema,
  ContactUpdateResponseSchema,
  SignupResponseSchema,
} from './responses.ts';
import { UsaSignupRequestSchema } from './usa-signup.ts';
import { EmailOnlyWorkSignupRequestSchema, WorkEmailSignupRequestSchema } from './work-email-signup.ts';

function endpoint<const K extends string, R extends v.GenericSchema, S extends v.GenericSchema>(def: {
  kind: K;
  method: 'POST' | 'PATCH';
  path: `/api/${string}`;
  summary: string;
  request: R;
  requestName: string;
  response: S;
  responseName: string;
  /** The email field that keys the submission (and the contact index for contact kinds). */
  emailField: 'email' | 'workEmail';
  /** Personal and disposable domains are rejected on this endpoint. */
  workEmailOnly: boolean;
  /** `simple` answers errors as {error, message} instead of the structured envelope. */
  errorStyle: 'structured' | 'simple';
  /** A contact kind: recordId is the contact id, stable per email. */
  contact: boolean;
}) {
  return def;
}

/**
 * The eleven submission endpoints: the one list the gateway's routes, the worker's job catalog and
 * /openapi.json are all made from.
 */
export const SUBMISSION_ENDPOINTS = [
  endpoint({ kind: 'contact', method: 'POST', path: '/api/contact', summary: 'Record a contact request', request: ContactRequestSchema, requestName: 'ContactRequest', response: ContactResponseSchema, responseName: 'ContactResponse', emailField: 'email', workEmailOnly: false, errorStyle: 'structured', contact: true }),
  endpoint({ kind: 'contact-update', method: 'PATCH', path: '/api/contact-update', summary: 'Upsert contact details by email', request: ContactUpdateRequestSchema, requestName: 'ContactUpdateRequest', response: ContactUpdateResponseSchema, responseName: 'ContactUpdateResponse', emailField: 'email', workEmailOnly: false, errorStyle: 'structured', contact: true }),
  endpoint({ kind: 'cpa-signup', method: 'POST', path: '/api/cpa-signup', summary: 'Sign up for the creator partnership ads service', request: WorkEmailSignupRequestSchema, requestName: 'WorkEmailSignupRequest', response: BasicSignupResponseSchema, responseName: 'BasicSignupResponse', emailField: 'email', workEmailOnly: true, errorStyle: 'structured', contact: false }),
  endpoint({ kind: 'caf-signup', method: 'POST', path: '/api/caf-signup', summary: 'Sign up for the content analysis framework', request: EmailOnlyWorkSignupRequestSchema, requestName: 'EmailOnlyWorkSignupRequest', response: BasicSignupResponseSchema, responseName: 'BasicSignupResponse', emailField: 'email', workEmailOnly: true, errorStyle: 'structured', contact: false }),
  endpoint({ kind: 'cdg-signup', method: 'POST', path: '/api/cdg-signup', summary: 'Sign up for the creator discovery guide', request: EmailOnlyWorkSignupRequestSchema, requestName: 'EmailOnlyWorkSignupRequest', response: BasicSignupResponseSchema, responseName: 'BasicSignupResponse', emailField: 'email', workEmailOnly: true, errorStyle: 'structured', contact: false }),
  endpoint({ kind: 'sfa-signup', method: 'POST', path: '/api/sfa-signup', summary: 'Sign up for the seeding affiliate playbook', request: WorkEmailSignupRequestSchema, requestName: 'WorkEmailSignupRequest', response: BasicSignupResponseSchema, responseName: 'BasicSignupResponse', emailField: 'email', workEmailOnly: true, errorStyle: 'structured', contact: false }),
  endpoint({ kind: 'rebriefing-signup', method: 'POST', path: '/api/rebriefing-signup', summary: 'Sign up for the rebriefing playbook', request: WorkEmailSignupRequestSchema, requestName: 'WorkEmailSignupRequest', response: BasicSignupResponseSchema, responseName: 'BasicSignupResponse', emailField: 'email', workEmailOnly: true, errorStyle: 'structured', contact: false }),
  endpoint({ kind: 'usa-signup', method: 'POST', path: '/api/usa-signup', summary: 'Join the USA programme waitlist', request: UsaSignupRequestSchema, requestName: 'UsaSignupRequest', response: BasicSignupResponseSchema, responseName: 'BasicSignupResponse', emailField: 'email', workEmailOnly: false, errorStyle: 'structured', contact: false }),
  endpoint({ kind: 'creator-signup', method: 'POST', path: '/api/creator-signup', summary: 'Sign up as a creator', request: CreatorSignupRequestSchema, requestName: 'CreatorSignupRequest', response: SignupResponseSchema, responseName: 'SignupResponse', emailField: 'email', workEmailOnly: false, errorStyle: 'structured', contact: false }),
  endpoint({ kind: 'careers-apply', method: 'POST', path: '/api/careers-apply', summary: 'Apply for a role, with an optional CV', request: CareersApplyRequestSchema, requestName: 'CareersApplyRequest', response: CareersApplyResponseSchema, responseName: 'CareersApplyResponse', emailField: 'email', workEmailOnly: false, errorStyle: 'simple', contact: false }),
  endpoint({ kind: 'partner-webinar', method: 'POST', path: '/api/partner-webinar', summary: 'Register for the partner webinar', request: PartnerWebinarRequestSchema, requestName: 'PartnerWebinarRequest', response: SignupResponseSchema, responseName: 'SignupResponse', emailField: 'workEmail', workEmailOnly: true, errorStyle: 'structured', contact: false }),
] as const;

export type SubmissionEndpoint = (typeof SUBMISSION_ENDPOINTS)[number];
export type SubmissionKind = SubmissionEndpoint['kind'];
export const SUBMISSION_KINDS = SUBMISSION_ENDPOINTS.map((e) => e.kind) as SubmissionKind[];

import type * as v from 'valibot';

/**
 * One kind of submission, with every fact about it: the gateway's route, the job catalog, /openapi.json,
 * MCP and the CRM drivers all read these. Adding a form is one call to this, appended to
 * SUBMISSION_ENDPOINTS, plus the kind's entry in the CRM mapping (docs/site-forms.md#adding-a-form).
 */
export function defineSubmissionEndpoint<
  const K extends string,
  R extends v.GenericSchema,
  S extends v.GenericSchema,
  J extends v.GenericSchema = R,
  const C extends boolean = boolean,
>(def: {
  kind: K;
  method: 'POST' | 'PATCH';
  path: `/api/${string}`;
  summary: string;
  request: R;
  requestName: string;
  response: S;
  responseName: string;
  /** What the job carries as `data`, when not the request as parsed (careers-apply drops the CV's bytes). */
  jobData?: J;
  /** The `message` of a success answer. */
  thanks: string;
  /** The email field that keys the submission (and the contact index for contact kinds). */
  emailField: 'email' | 'workEmail';
  /** Personal and disposable domains are rejected on this endpoint. */
  workEmailOnly: boolean;
  /** `simple` answers errors as {error, message} instead of the structured envelope. */
  errorStyle: 'structured' | 'simple';
  /** A contact kind: recordId is the contact id, stable per email, and its writes merge into one contact. */
  contact: C;
}) {
  return { ...def, jobData: (def.jobData ?? def.request) as J };
}

import type { LatestVideo, SubmissionEndpoint, SubmissionKind } from '@forms/schemas';
import type * as v from 'valibot';
import type { FormResult } from './form-result.ts';
import { newIdempotencyKey } from './new-idempotency-key.ts';
import { readAsBase64 } from './read-as-base64.ts';
import { type RetryOptions, sendWithRetry } from './send-with-retry.ts';

type EndpointOf<K extends SubmissionKind> = Extract<SubmissionEndpoint, { kind: K }>;
/** What a site sends to an endpoint: the request schema's input type. */
export type SubmissionInput<K extends SubmissionKind> = v.InferInput<EndpointOf<K>['request']>;
/** What the endpoint answers on success. */
export type SubmissionAnswer<K extends SubmissionKind> = v.InferOutput<EndpointOf<K>['response']>;
/** `cpa`, `caf`, `cdg`, `sfa`, `rebriefing`, `usa`, `creator`: the `/api/<kind>-signup` endpoints. */
export type SignupKind = SubmissionKind extends infer K ? (K extends `${infer S}-signup` ? S : never) : never;
export type SignupKindOf<S extends SignupKind> = Extract<SubmissionKind, `${S}-signup`>;
/** careers-apply with the CV as a File or Blob; the client sends it as `cvFile: {filename, contentType, data}`. */
export type JobApplication = Omit<SubmissionInput<'careers-apply'>, 'cvFile'> & { cvFile?: Blob | null | undefined };

/** The form field each challenge provider's widget fills, and the gateway reads the token from. */
const CHALLENGE_FIELDS = {
  turnstile: 'cf-turnstile-response',
  hcaptcha: 'h-captcha-response',
  recaptcha: 'g-recaptcha-response',
} as const;

/**
 * Per call: the retry settings, an AbortSignal, a key to reuse (say, one kept across a page reload), and the
 * token of a solved challenge (Turnstile, hCaptcha, reCAPTCHA), sent in the field its widget names. Tokens are
 * single use: reset the widget after each call; the call's own retries reuse it, and the gateway knows them.
 */
export type CallOptions = RetryOptions & {
  idempotencyKey?: string;
  challenge?: { provider: keyof typeof CHALLENGE_FIELDS; token: string };
};
export type ClientOptions = Omit<RetryOptions, 'signal'> & { baseUrl: string };

/**
 * One function per endpoint; each resolves to a FormResult and never throws. A submission identical to one
 * still in flight (a double click, a form submitted twice) shares that request instead of sending another.
 */
export function createFormsClient({ baseUrl, ...defaults }: ClientOptions) {
  const root = baseUrl.replace(/\/+$/, '');
  const inFlight = new Map<string, Promise<FormResult<unknown>>>();

  function submit<K extends SubmissionKind>(
    kind: K,
    body: unknown,
    options: CallOptions = {},
  ): Promise<FormResult<SubmissionAnswer<K>>> {
    const { challenge } = options;
    const json = JSON.stringify(
      challenge ? { ...(body as object), [CHALLENGE_FIELDS[challenge.provider]]: challenge.token } : body,
    );
    const key = `${kind} ${json}`;
    let pending = inFlight.get(key);
    if (!pending) {
      // Every path is /api/<kind>, and only contact-update is a PATCH (create-forms-client.test.ts holds this to the schemas).
      const call = {
        url: `${root}/api/${kind}`,
        method: kind === 'contact-update' ? 'PATCH' : 'POST',
        body: json,
        idempotencyKey: options.idempotencyKey ?? newIdempotencyKey(),
      };
      pending = sendWithRetry(call, { ...defaults, ...options });
      inFlight.set(key, pending);
      pending.then(() => inFlight.delete(key));
    }
    return pending as Promise<FormResult<SubmissionAnswer<K>>>;
  }

  return {
    submitContact: (body: SubmissionInput<'contact'>, options?: CallOptions) => submit('contact', body, options),
    updateContact: (body: SubmissionInput<'contact-update'>, options?: CallOptions) =>
      submit('contact-update', body, options),
    signup: <S extends SignupKind>(kind: S, body: SubmissionInput<SignupKindOf<S>>, options?: CallOptions) =>
      submit(`${kind}-signup` as SignupKindOf<S>, body, options),
    registerForWebinar: (body: SubmissionInput<'partner-webinar'>, options?: CallOptions) =>
      submit('partner-webinar', body, options),
    async applyForJob({ cvFile, ...rest }: JobApplication, options?: CallOptions) {
      const body = cvFile
        ? {
            ...rest,
            cvFile: {
              filename: (cvFile as File).name || 'cv',
              contentType: cvFile.type,
              data: await readAsBase64(cvFile),
            },
          }
        : rest;
      return submit('careers-apply', body, options);
    },
    latestVideo: (options?: Omit<CallOptions, 'idempotencyKey' | 'challenge'>) =>
      sendWithRetry<LatestVideo>({ url: `${root}/api/latest-video`, method: 'GET' }, { ...defaults, ...options }),
  };
}

export type FormsClient = ReturnType<typeof createFormsClient>;

import { envInt } from '@forms/schemas';
import * as v from 'valibot';

const flag = v.picklist(['true', 'false', '1', '0']);

/**
 * The S3_* variables both apps read, as valibot entries to spread into each app's environment schema, so
 * the names, defaults and messages are written once. Credentials come from AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY when set; otherwise the SDK's own provider chain finds them (profile, SSO, role).
 */
export const S3_ENV_ENTRIES = {
  S3_ENDPOINT: v.optional(v.pipe(v.string(), v.url('must be a URL, such as http://127.0.0.1:9000'))),
  S3_BUCKET: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        'must be a valid bucket name (3-63 lower-case letters, digits, dots, hyphens)',
      ),
    ),
  ),
  S3_REGION: v.optional(v.string(), 'us-east-1'),
  S3_FORCE_PATH_STYLE: v.optional(flag),
  S3_CREATE_BUCKET: v.optional(flag, 'true'),
  S3_TIMEOUT_MS: v.optional(envInt, '5000'),
  AWS_ACCESS_KEY_ID: v.optional(v.string()),
  AWS_SECRET_ACCESS_KEY: v.optional(v.string()),
  AWS_SESSION_TOKEN: v.optional(v.string()),
};

type S3Env = {
  S3_ENDPOINT?: string | undefined;
  S3_BUCKET?: string | undefined;
  S3_REGION: string;
  S3_FORCE_PATH_STYLE?: string | undefined;
  S3_CREATE_BUCKET: string;
  S3_TIMEOUT_MS: number;
  AWS_ACCESS_KEY_ID?: string | undefined;
  AWS_SECRET_ACCESS_KEY?: string | undefined;
  AWS_SESSION_TOKEN?: string | undefined;
};

export type StorageSettings = Readonly<{
  /** Unset means AWS S3 itself; set for any S3-compatible server. */
  endpoint: string | undefined;
  bucket: string;
  region: string;
  /** Path-style URLs (`endpoint/bucket/key`): what most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Create the bucket at start-up when it is missing. */
  createBucket: boolean;
  /** Bound on one S3 call from the request path or a job. */
  timeoutMs: number;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}>;

/**
 * Object storage is on when S3_BUCKET is set. Path-style defaults to on whenever an endpoint is given
 * (S3-compatible servers rarely resolve bucket sub-domains) and off for AWS itself.
 */
export function storageSettings(e: S3Env): StorageSettings | undefined {
  if (!e.S3_BUCKET) return undefined;
  const isTrue = (value: string) => value === 'true' || value === '1';
  const hasKeys = e.AWS_ACCESS_KEY_ID !== undefined && e.AWS_SECRET_ACCESS_KEY !== undefined;
  return Object.freeze({
    endpoint: e.S3_ENDPOINT,
    bucket: e.S3_BUCKET,
    region: e.S3_REGION,
    forcePathStyle: e.S3_FORCE_PATH_STYLE === undefined ? e.S3_ENDPOINT !== undefined : isTrue(e.S3_FORCE_PATH_STYLE),
    createBucket: isTrue(e.S3_CREATE_BUCKET),
    timeoutMs: e.S3_TIMEOUT_MS,
    credentials: hasKeys
      ? {
          accessKeyId: e.AWS_ACCESS_KEY_ID!,
          secretAccessKey: e.AWS_SECRET_ACCESS_KEY!,
          ...(e.AWS_SESSION_TOKEN ? { sessionToken: e.AWS_SESSION_TOKEN } : {}),
        }
      : undefined,
  });
}

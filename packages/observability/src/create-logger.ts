import { type DestinationStream, type Logger, pino, stdSerializers } from 'pino';
import { logSafeText } from './log-safe-text.ts';
import { PERSONAL_FIELDS, SUBMISSION_CARRIERS } from './personal-fields.ts';

const SECRET_PATHS = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

/** `name` and `x` are too common as our own log keys (a job's name); inside a submission they go with it. */
const REDACTED_FIELDS = PERSONAL_FIELDS.filter((key) => key !== 'name' && key !== 'x');

/**
 * Redaction paths: each personal field and each submission carrier at the top of a log line and one or
 * two levels down (`{job: {data}}`, `{err: {payload: {email}}}`). pino's paths have no "any depth", so the
 * depths our lines use are listed; deeper values are the messages' care.
 */
export const REDACT_PATHS = [
  ...SECRET_PATHS,
  ...[...REDACTED_FIELDS, ...SUBMISSION_CARRIERS].flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
];

/**
 * What an error may show in a log line: its class, message and stack (scrubbed), and the short codes that
 * say what went wrong (`ECONNREFUSED`, a SQLSTATE, an HTTP status). Nothing else an error carries is kept,
 * whatever its driver put there: ioredis's `command` holds the command's arguments (BullMQ's add: the job's
 * JSON, with the submitter's email, name and phone, logged whenever Redis refused a write), pg's `detail`
 * the failing row, `where` and `parameters` the values. A list of what to drop would miss the next driver's
 * field; this is the list of what to keep.
 */
const KEPT_SCALARS = ['code', 'errno', 'syscall', 'status', 'statusCode', 'severity', 'constraint'] as const;
const MAX_CAUSES = 5;

function safeError(raw: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['type', 'message', 'stack'] as const)
    if (typeof raw[key] === 'string') out[key] = logSafeText(raw[key] as string);
  for (const key of KEPT_SCALARS) {
    const value = raw[key];
    if (typeof value === 'number') out[key] = value;
    else if (typeof value === 'string') out[key] = logSafeText(value.slice(0, 100));
  }
  if (depth < MAX_CAUSES && isObject(raw.cause)) out.cause = safeError(raw.cause, depth + 1);
  if (depth < MAX_CAUSES && Array.isArray(raw.aggregateErrors))
    out.aggregateErrors = raw.aggregateErrors
      .slice(0, MAX_CAUSES)
      .filter(isObject)
      .map((e) => safeError(e, depth + 1));
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * pino's error serializer (class, message and stack with their causes), reduced to what `safeError` keeps.
 * Also takes the plain message strings some lines log as `err`.
 */
function serializeError(err: unknown): unknown {
  if (typeof err === 'string') return logSafeText(err);
  if (!isObject(err)) return err;
  return safeError(stdSerializers.err(err as unknown as Error) as unknown as Record<string, unknown>, 0);
}

/**
 * Errors logged under another key than `err` (`{ error }`, `{ reason }`, one level down in `{ job: { err } }`)
 * get the same treatment: pino's serializers see only top-level keys, and JSON.stringify of an Error keeps
 * exactly the driver's own enumerable fields (ioredis's `command`) and drops the message.
 */
function serializeErrorsIn(object: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let out = object;
  for (const [key, value] of Object.entries(object)) {
    if (depth === 0 && key === 'err') continue; // serializeError's, after this formatter
    let safe: unknown = value;
    if (value instanceof Error) safe = serializeError(value);
    else if (depth < 1 && isObject(value) && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype)
      safe = serializeErrorsIn(value, depth + 1);
    if (safe !== value) {
      if (out === object) out = { ...object };
      out[key] = safe;
    }
  }
  return out;
}

/**
 * The one logger factory of every app and the ops CLI: JSON lines, personal data redacted by path, error
 * messages scrubbed. `destination` lets tests and the CLI choose where lines go (stderr for the CLI, so
 * `--json` output stays clean).
 */
export function createLogger(
  { level, base }: { level: string; base?: Record<string, unknown> },
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      level,
      ...(base ? { base } : {}),
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
      formatters: { log: serializeErrorsIn },
      hooks: {
        // The message string itself: a scrub costs little and catches an interpolated value.
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? logSafeText(arg) : arg));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

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
 * pino's error serializer, with messages and stacks made log-safe and driver extras (pg's `detail`)
 * dropped. Also takes the plain message strings some lines log as `err`.
 */
function errSerializer(err: Error | string) {
  if (typeof err === 'string') return logSafeText(err);
  const out = stdSerializers.err(err) as Record<string, unknown>;
  // pg puts the failing row in `detail` ("Failing row contains (…, ada@…)") and values in `where`.
  for (const key of ['detail', 'where', 'hint', 'parameters', 'query']) delete out[key];
  for (const key of ['message', 'stack']) if (typeof out[key] === 'string') out[key] = logSafeText(out[key] as string);
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
      serializers: { err: errSerializer },
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

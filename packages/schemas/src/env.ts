import * as v from 'valibot';

/**
 * Parses environment variables with `schema` once, at start-up. Empty values count as unset (so a
 * `FOO=` line in a .env file means "use the default"); the first bad value throws an error naming the
 * variable, which stops the process with a message an operator can act on.
 */
export function parseEnv<S extends v.GenericSchema>(
  schema: S,
  env: Record<string, string | undefined>,
): v.InferOutput<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = v.safeParse(schema, present);
  if (!result.success) {
    const issue = result.issues[0];
    throw new Error(`Invalid configuration: ${v.getDotPath(issue) ?? 'environment'} ${issue.message}`);
  }
  return result.output;
}

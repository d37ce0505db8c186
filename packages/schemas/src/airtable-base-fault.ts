import * as v from 'valibot';

/**
 * A fault of the Airtable base's configuration, not of any record: Airtable refused the credential (401,
 * 403) or found no such base or table (404). While one stands the worker pauses the base and jobs wait. The
 * worker keeps it in Redis at `airtableBaseFaultKey(baseId)`; the gateway's /readyz, metrics and the ops CLI
 * read it from there, with this schema.
 */
export const AirtableBaseFaultSchema = v.object({
  status: v.pipe(v.number(), v.description('The HTTP status Airtable answered (401, 403 or 404)')),
  type: v.pipe(v.string(), v.description("Airtable's error type, e.g. AUTHENTICATION_REQUIRED")),
  variable: v.pipe(v.string(), v.description('The setting an operator must fix')),
  since: v.pipe(v.string(), v.description('When this fault was first seen (ISO time); kept across probes')),
  checkedAt: v.pipe(v.string(), v.description('When a probe last met it (ISO time)')),
});
export type AirtableBaseFault = v.InferOutput<typeof AirtableBaseFaultSchema>;

/** The Redis key holding a base's fault; braces keep it in the slot of the base's rate-limit keys. */
export function airtableBaseFaultKey(baseId: string, keyPrefix = 'airtable'): string {
  return `${keyPrefix}:{${baseId}}:fault`;
}

/** The fault stored at the key, or undefined for none (or for a value that is not one). */
export function parseAirtableBaseFault(raw: string | null | undefined): AirtableBaseFault | undefined {
  if (!raw) return undefined;
  try {
    const parsed = v.safeParse(AirtableBaseFaultSchema, JSON.parse(raw));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

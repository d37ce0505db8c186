/**
 * The CRM error code and HTTP status in a job's failure reason, for `--code` and the per-error count.
 * Airtable failures read `Airtable 422 INVALID_VALUE_FOR_COLUMN: …` (see airtable-client.ts); the
 * Postgres driver's carry Postgres's message only. Undefined when the reason names neither.
 */
export function failureCode(reason: string | undefined): { status?: number; code?: string } {
  const airtable = /\b([1-5]\d\d) ([A-Z][A-Z0-9_]+)\b/.exec(reason ?? '');
  if (airtable) return { status: Number(airtable[1]), code: airtable[2]! };
  return {};
}

/**
 * A reason made comparable across jobs, for the count per error: the code when there is one, else the
 * first line with ids, numbers and quoted values blanked, cut to 100 characters. An address and port
 * (`127.0.0.1:59999`, `api.airtable.com:443`) is kept: it is the same for every job it fails, and it is
 * what the operator needs (`fetch failed: connect ECONNREFUSED 127.0.0.1:59999`).
 */
export function errorGroup(reason: string | undefined): string {
  const { status, code } = failureCode(reason);
  if (code) return `${status} ${code}`;
  const line = (reason ?? '(no reason)').split('\n')[0]!;
  return line
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b(sub|con)_[0-9A-Za-z_]+/g, '<id>')
    .replace(ADDRESS_OR_NUMBER, (_match, address?: string) => address ?? 'N')
    .slice(0, 100);
}

const ADDRESS_OR_NUMBER = /\b(\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|[A-Za-z][\w.-]*:\d{1,5})\b|\d+/g;

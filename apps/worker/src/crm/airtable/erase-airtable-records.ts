import { endpointFor, SUBMISSION_KINDS } from '@forms/schemas';
import type { ErasedRecords, ErasureTarget } from '../crm.ts';
import type { AirtableMapping } from './airtable-mapping.ts';
import { type AirtableRecords, formulaText } from './airtable-records.ts';

/** Submission ids per formula: keeps each list request's URL well under Airtable's 16 k limit. */
const IDS_PER_FORMULA = 40;

/**
 * Every Airtable record of a person, table by table: a record whose address field (any kind's email field
 * mapped to that table, compared lower-cased) is the address, or whose submission id is one of theirs (the
 * merge key of every non-contact table). Counted with `dryRun`, else deleted.
 */
export async function eraseAirtableRecords(
  records: AirtableRecords,
  mapping: AirtableMapping,
  { email, submissionIds }: ErasureTarget,
  { dryRun }: { dryRun: boolean },
): Promise<ErasedRecords> {
  const idField = mapping.meta.submissionId;
  const emailFields = new Map<string, Set<string>>();
  for (const kind of SUBMISSION_KINDS) {
    const { table, fields } = mapping.kinds[kind];
    const field = fields[endpointFor(kind).emailField];
    const set = emailFields.get(table) ?? new Set<string>();
    if (field) set.add(field);
    emailFields.set(table, set);
  }
  // A careers record names its CV (the attachment, the `cv.*` fields) when the mapping keeps one.
  const careers = mapping.kinds['careers-apply'];
  const keepsCvs =
    Object.keys(careers.attachments).length > 0 || Object.keys(careers.fields).some((p) => p.startsWith('cv.'));
  let count = 0;
  let cvRecords = 0;
  const ids = new Set<string>();
  for (const [table, fields] of emailFields) {
    const byEmail = [...fields].map((f) => `LOWER({${f}})=${formulaText(email)}`);
    const found = new Set<string>();
    for (let i = 0; i === 0 || i < submissionIds.length; i += IDS_PER_FORMULA) {
      const byId = submissionIds.slice(i, i + IDS_PER_FORMULA).map((id) => `{${idField}}=${formulaText(id)}`);
      const terms = i === 0 ? [...byEmail, ...byId] : byId;
      if (terms.length === 0) continue;
      for (const { id, value } of await records.find(table, `OR(${terms.join(',')})`, idField)) {
        found.add(id);
        if (typeof value === 'string') ids.add(value);
      }
    }
    if (keepsCvs && table === careers.table) cvRecords += found.size;
    count += dryRun ? found.size : await records.remove(table, [...found]);
  }
  return { records: count, submissionIds: [...ids], cvRecords };
}

/**
 * Clears the CV link of careers records: the attachment field emptied, the `cv.*` description fields
 * (key, hash, size, type) blanked. Records are found by their submission id, the table's merge key.
 */
export async function clearAirtableCvLinks(
  records: AirtableRecords,
  mapping: AirtableMapping,
  submissionIds: readonly string[],
): Promise<number> {
  const { table, fields, attachments } = mapping.kinds['careers-apply'];
  const cleared: Record<string, unknown> = {};
  for (const [path, name] of Object.entries(fields)) if (path.startsWith('cv.')) cleared[name] = null;
  for (const name of Object.values(attachments)) cleared[name] = [];
  if (Object.keys(cleared).length === 0 || submissionIds.length === 0) return 0;
  const idField = mapping.meta.submissionId;
  const ids: string[] = [];
  for (let i = 0; i < submissionIds.length; i += IDS_PER_FORMULA) {
    const terms = submissionIds.slice(i, i + IDS_PER_FORMULA).map((id) => `{${idField}}=${formulaText(id)}`);
    ids.push(...(await records.find(table, `OR(${terms.join(',')})`, idField)).map((r) => r.id));
  }
  return records.update(
    table,
    ids.map((id) => ({ id, fields: cleared })),
  );
}

import { endpointFor } from '@forms/schemas';
import { isContactKind, type SpamMarkTarget } from '../crm.ts';
import type { AirtableMapping } from './airtable-mapping.ts';
import { type AirtableRecords, formulaText } from './airtable-records.ts';

/**
 * Ticks the `meta.markedSpam` checkbox of these submissions' records: a contact's record found by its
 * address (the contacts table merges on it, one record per person), any other by its submission id (the
 * merge key of every other table). One look-up and one update per record, through the base's shared limiter.
 * Answers the submission ids whose record was found; none when the mapping keeps no mark.
 */
export async function markAirtableSpam(
  records: AirtableRecords,
  mapping: AirtableMapping,
  targets: readonly SpamMarkTarget[],
): Promise<string[]> {
  const { markedSpam, submissionId: idField } = mapping.meta;
  if (!markedSpam) return [];
  const marked: string[] = [];
  for (const target of targets) {
    const { table, fields } = mapping.kinds[target.kind];
    const formula = isContactKind(target.kind)
      ? `LOWER({${fields[endpointFor(target.kind).emailField]}})=${formulaText(target.email)}`
      : `{${idField}}=${formulaText(target.submissionId)}`;
    const found = await records.find(table, formula, idField);
    if (found.length === 0) continue;
    await records.update(
      table,
      found.map((r) => ({ id: r.id, fields: { [markedSpam]: true } })),
    );
    marked.push(target.submissionId);
  }
  return marked;
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TraceLink } from '@forms/observability';
import { SUBMISSION_KINDS, type SubmissionKind } from '@forms/schemas';
import * as v from 'valibot';
import { acceptanceStamp, type DeliveredSubmission, deliveredSpamVerdict, isContactKind } from '../crm.ts';

/** The mapping shipped with the worker; `AIRTABLE_MAPPING_FILE` points elsewhere. */
const DEFAULT_MAPPING_FILE = fileURLToPath(
  // From src/crm/airtable/ when run as TypeScript, from dist/ when bundled: apps/worker/airtable-mapping.json
  // either way, whatever the working directory.
  new URL(
    import.meta.url.endsWith('.ts') ? '../../../airtable-mapping.json' : '../airtable-mapping.json',
    import.meta.url,
  ),
);

const fieldName = v.pipe(v.string(), v.trim(), v.minLength(1, 'an Airtable field name cannot be empty'));

/**
 * The stored files a delivered submission can carry, by the top-level key that holds them. Only the worker
 * puts them there (never the client's `data`), each with a short-lived URL Airtable copies the file from.
 */
const ATTACHMENT_SOURCES = ['cv'] as const satisfies readonly (keyof DeliveredSubmission)[];
type AttachmentSource = (typeof ATTACHMENT_SOURCES)[number];

const KindMappingSchema = v.object({
  table: v.pipe(v.string(), v.trim(), v.minLength(1, 'a table name cannot be empty')),
  /** Our field (a dotted path for nested values) → Airtable field name. Fields not listed are not sent. */
  fields: v.record(v.pipe(v.string(), v.minLength(1)), fieldName),
  /** A stored file → the Airtable attachment field that receives it. */
  attachments: v.optional(
    v.record(
      v.picklist(
        ATTACHMENT_SOURCES,
        `an attachment names a stored file the worker delivers (${ATTACHMENT_SOURCES.join(', ')})`,
      ),
      fieldName,
    ),
    {},
  ),
});

const MappingSchema = v.object({
  meta: v.object({
    submissionId: fieldName,
    recordId: v.nullable(fieldName),
    kind: v.nullable(fieldName),
    acceptedAt: v.nullable(fieldName),
    // The spam fields, optional: a mapping written before they existed still loads, and sends none of them.
    /** A number field: the content filter's score of a delivered submission (sortable). */
    spamScore: v.optional(v.nullable(fieldName), null),
    /** A text field: the reasons that flagged it without holding it (half weight: "unsure"). */
    spamReasons: v.optional(v.nullable(fieldName), null),
    /** A checkbox: set by `ops spam mark`, never by a delivery. */
    markedSpam: v.optional(v.nullable(fieldName), null),
  }),
  kinds: v.object(
    Object.fromEntries(SUBMISSION_KINDS.map((kind) => [kind, KindMappingSchema])) as Record<
      SubmissionKind,
      typeof KindMappingSchema
    >,
  ),
});

export type AirtableMapping = v.InferOutput<typeof MappingSchema>;

/** One record bound for Airtable: its table, the one field it merges on, and that field's value. */
export type AirtableWrite = {
  table: string;
  mergeOn: string;
  mergeValue: string;
  fields: Record<string, unknown>;
  /**
   * Set when several submissions write this one record (contacts: one record per email): this write's
   * `acceptanceStamp`. The driver then sends only the fields no newer write has set (see MergeKeyGuard).
   */
  newerWins?: { stamp: string };
  /**
   * Fields of this write that a base set up before they existed may lack (the spam fields): a base that
   * answers UNKNOWN_FIELD_NAME for one gets the write without it (see `createBatchSender`).
   */
  optionalFields?: string[];
  /** The submission's span (tracing on): the request that carries this write links to it. */
  trace?: TraceLink | undefined;
};

/**
 * Reads and checks a mapping file. Every kind must be mapped (a kind without a table would fail every job
 * of it at run time; better to refuse to start), a contact kind must map its email, which it merges on,
 * and an attachment field must be written by nothing else.
 */
export function loadAirtableMapping(file: string = DEFAULT_MAPPING_FILE): AirtableMapping {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`Airtable mapping ${file} cannot be read: ${(err as Error).message}`);
  }
  return parseAirtableMapping(raw, file);
}

export function parseAirtableMapping(raw: unknown, source = 'mapping'): AirtableMapping {
  const result = v.safeParse(MappingSchema, raw);
  if (!result.success) {
    const issue = result.issues[0];
    const at = v.getDotPath(issue) ?? '(root)';
    throw new Error(`Airtable mapping ${source}: ${at}: ${issue.message}`);
  }
  const mapping = result.output;
  const mergeFieldOf = new Map<string, string>();
  for (const kind of SUBMISSION_KINDS) {
    const { table, fields } = mapping.kinds[kind];
    if (isContactKind(kind) && !fields.email)
      throw new Error(`Airtable mapping ${source}: kinds.${kind}.fields.email is required: contacts merge on it`);
    checkAttachmentsStandAlone(mapping, kind, source);
    // One table, one merge field: a request merges on one field list, so kinds sharing a table must agree.
    const mergeOn = mergeFieldFor(mapping, kind);
    const seen = mergeFieldOf.get(table);
    if (seen !== undefined && seen !== mergeOn) {
      throw new Error(
        `Airtable mapping ${source}: table "${table}" would merge on both "${seen}" and "${mergeOn}"; give contact kinds a table of their own`,
      );
    }
    mergeFieldOf.set(table, mergeOn);
  }
  return mapping;
}

/**
 * An attachment cell holds file objects, and a file's field also gets nothing else: a field written twice
 * would get whichever value came last, and an attachment field cannot take the merge value or a text.
 */
function checkAttachmentsStandAlone(mapping: AirtableMapping, kind: SubmissionKind, source: string): void {
  const { fields, attachments } = mapping.kinds[kind];
  const writers = new Map<string, string>();
  for (const [name, airtableName] of Object.entries(mapping.meta))
    if (airtableName) writers.set(airtableName, `meta.${name}`);
  for (const [path, airtableName] of Object.entries(fields))
    if (!writers.has(airtableName)) writers.set(airtableName, `fields.${path}`);
  for (const [file, airtableName] of Object.entries(attachments)) {
    const other = writers.get(airtableName);
    if (other !== undefined) {
      throw new Error(
        `Airtable mapping ${source}: kinds.${kind}.attachments.${file}: field "${airtableName}" is already written by ${other}`,
      );
    }
    writers.set(airtableName, `attachments.${file}`);
  }
}

function mergeFieldFor(mapping: AirtableMapping, kind: SubmissionKind): string {
  return isContactKind(kind) ? mapping.kinds[kind].fields.email! : mapping.meta.submissionId;
}

/**
 * Turns a submission into its Airtable record. Contacts merge on their (lower-cased) email, so every
 * contact submission for one address lands on one record; every other kind merges on its submission id,
 * so a retry or a replay updates its own record instead of adding one. Absent values are not sent, so a
 * partial contact update never blanks a field an earlier one filled.
 *
 * A stored file goes out as Airtable's attachment cell, `[{url, filename}]`: Airtable downloads the file
 * from the (presigned) URL, and a cell written this way replaces the field's attachments, so a retry or a
 * replay, each with a fresh URL, still leaves one attachment.
 */
export function toAirtableWrite(submission: DeliveredSubmission, mapping: AirtableMapping): AirtableWrite {
  const { table, fields: fieldMap, attachments } = mapping.kinds[submission.kind];
  const fields: Record<string, unknown> = {};
  for (const [path, airtableName] of Object.entries(fieldMap)) {
    const value = readPath(submission, path);
    if (value !== undefined && value !== null && typeof value !== 'object') fields[airtableName] = value;
  }
  for (const [source, airtableName] of Object.entries(attachments) as [AttachmentSource, string][]) {
    const file = submission[source];
    if (file) fields[airtableName] = [{ url: file.url, filename: file.filename }];
  }
  const { meta } = mapping;
  fields[meta.submissionId] = submission.submissionId;
  if (meta.recordId) fields[meta.recordId] = submission.recordId;
  if (meta.kind) fields[meta.kind] = submission.kind;
  if (meta.acceptedAt) fields[meta.acceptedAt] = submission.acceptedAt;
  // A judged submission's verdict (a contact's record holds its latest judged submission's, newer wins per
  // field as for the rest); an unjudged one sends neither field, leaving what an earlier one set.
  const spam = deliveredSpamVerdict(submission);
  const optionalFields: string[] = [];
  if (spam && meta.spamScore) {
    fields[meta.spamScore] = spam.score;
    optionalFields.push(meta.spamScore);
  }
  if (spam && meta.spamReasons) {
    fields[meta.spamReasons] = spam.reasons.join(', ');
    optionalFields.push(meta.spamReasons);
  }

  const mergeOn = mergeFieldFor(mapping, submission.kind);
  const newerWins = isContactKind(submission.kind) ? { stamp: acceptanceStamp(submission) } : undefined;
  return {
    table,
    mergeOn,
    mergeValue: String(fields[mergeOn]),
    fields,
    ...(newerWins ? { newerWins } : {}),
    ...(optionalFields.length > 0 ? { optionalFields } : {}),
  };
}

/**
 * A dotted path read in the submission's data first, then in the delivered submission (where the stored
 * CV's details live: careers `data.cv` is the applicant's link, a string, so `cv.key` is found at the top).
 */
function readPath(submission: DeliveredSubmission, path: string): unknown {
  const inData = dig(submission.data, path);
  return inData !== undefined ? inData : dig(submission, path);
}

function dig(from: unknown, path: string): unknown {
  let at = from;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

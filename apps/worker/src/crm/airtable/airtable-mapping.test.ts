import type { JobPayload } from '@forms/schemas';
import { describe, expect, it } from 'vitest';
import type { DeliveredCv, DeliveredSubmission } from '../crm.ts';
import { loadAirtableMapping, parseAirtableMapping, toAirtableWrite } from './airtable-mapping.ts';

const mapping = loadAirtableMapping();
const base = { v: 1, recordId: 'con_1', acceptedAt: '2026-01-01T00:00:00.000Z' } as const;

describe('the default mapping', () => {
  it('merges contacts on their email (lower-cased once, by the gateway), keeping our ids beside', () => {
    const write = toAirtableWrite(
      {
        ...base,
        submissionId: 'sub_1',
        kind: 'contact-update',
        data: { email: 'ada@example.com', pricingTier: 'micro' },
      } as JobPayload,
      mapping,
    );
    expect(write).toEqual({
      table: 'Contacts',
      mergeOn: 'Email',
      mergeValue: 'ada@example.com',
      fields: {
        Email: 'ada@example.com',
        'Pricing Tier': 'micro',
        'Submission ID': 'sub_1',
        'Record ID': 'con_1',
        Form: 'contact-update',
        'Accepted At': base.acceptedAt,
      },
      // Several submissions write one contact record: the write carries its place in acceptance order.
      newerWins: { stamp: '001767225600000|sub_1' },
    });
  });

  it('merges every other kind on its submission id and leaves absent fields out', () => {
    const write = toAirtableWrite(
      {
        ...base,
        recordId: 'sub_2',
        submissionId: 'sub_2',
        kind: 'partner-webinar',
        data: { workEmail: 'g@co.example', fullName: 'Grace' },
      } as JobPayload,
      mapping,
    );
    expect(write.table).toBe('Webinar Registrations');
    expect(write.mergeOn).toBe('Submission ID');
    expect(write.mergeValue).toBe('sub_2');
    expect(write.fields).not.toHaveProperty('Questions');
    expect(write.fields).toMatchObject({ Email: 'g@co.example', Name: 'Grace' });
  });
});

describe('the default mapping of careers CVs', () => {
  const cv: DeliveredCv = {
    bucket: 'cvs',
    key: 'cv/sub_cv.pdf',
    filename: 'Grace Hopper CV.pdf',
    contentType: 'application/pdf',
    size: 2048,
    sha256: 'a'.repeat(64),
    url: 'https://s3.example/cvs/cv/sub_cv.pdf?X-Amz-Signature=abc',
    urlExpiresAt: '2026-01-01T00:15:00.000Z',
  };
  const application = (data: Record<string, unknown>, extra: Partial<DeliveredSubmission> = {}) =>
    ({
      ...base,
      submissionId: 'sub_cv',
      recordId: 'sub_cv',
      kind: 'careers-apply',
      data: { name: 'Grace', email: 'g@navy.example', role: 'Engineer', ...data },
      ...extra,
    }) as DeliveredSubmission;

  it('attaches the stored CV by its URL and records its key, hash, size and type', () => {
    const write = toAirtableWrite(application({ stagedCv: { key: 'incoming/cv/sub_cv.pdf' } }, { cv }), mapping);
    expect(write).toMatchObject({ table: 'Applications', mergeOn: 'Submission ID', mergeValue: 'sub_cv' });
    expect(write.fields).toMatchObject({
      CV: [{ url: cv.url, filename: 'Grace Hopper CV.pdf' }],
      'CV Key': 'cv/sub_cv.pdf',
      'CV SHA-256': cv.sha256,
      'CV Size': 2048,
      'CV Type': 'application/pdf',
    });
    // Only what Airtable's attachment object takes; the expiry, bucket and hash stay out of the cell.
    expect(Object.keys((write.fields.CV as object[])[0]!)).toEqual(['url', 'filename']);
    expect(write.fields).not.toHaveProperty('CV Link');
    expect(write.fields).not.toHaveProperty('CV Upload Failed');
  });

  it("keeps the applicant's own link apart from the stored file", () => {
    const write = toAirtableWrite(application({ cv: 'https://drive.example/grace' }, { cv }), mapping);
    expect(write.fields).toMatchObject({
      'CV Link': 'https://drive.example/grace',
      'CV Key': 'cv/sub_cv.pdf',
      CV: [{ url: cv.url }],
    });
  });

  it('sends no CV fields without a stored CV, and ticks CV Upload Failed when it could not be kept', () => {
    const none = toAirtableWrite(application({}), mapping);
    expect(Object.keys(none.fields).filter((f) => f.startsWith('CV'))).toEqual([]);
    const lost = toAirtableWrite(application({ cvUploadFailed: true }), mapping);
    expect(lost.fields['CV Upload Failed']).toBe(true);
    expect(lost.fields).not.toHaveProperty('CV');
    expect(lost.fields).not.toHaveProperty('CV Key');
  });

  it('attaches nothing for a link alone: only a file the worker stored becomes an attachment', () => {
    const write = toAirtableWrite(application({ cv: 'https://drive.example/grace.pdf' }), mapping);
    expect(write.fields['CV Link']).toBe('https://drive.example/grace.pdf');
    expect(write.fields).not.toHaveProperty('CV');
    expect(write.fields).not.toHaveProperty('CV Key');
  });
});

describe('a custom mapping', () => {
  const custom = structuredClone(mapping) as any;
  custom.kinds['careers-apply'].fields = {
    ...custom.kinds['careers-apply'].fields,
    'cv.url': 'CV File',
    'cv.size': 'CV Bytes',
  };

  it('reads dotted paths, in the data or at the top of the job (where CV details may travel)', () => {
    const parsed = parseAirtableMapping(custom);
    const inData = toAirtableWrite(
      {
        ...base,
        submissionId: 's',
        kind: 'careers-apply',
        data: { name: 'A', email: 'a@b.example', role: 'R', cv: { url: 'https://cv.example/1', size: 10 } },
      } as unknown as JobPayload,
      parsed,
    );
    expect(inData.fields).toMatchObject({ 'CV File': 'https://cv.example/1', 'CV Bytes': 10 });
    expect(inData.fields).not.toHaveProperty('CV Link'); // an object is never sent as a cell value
    const atTop = toAirtableWrite(
      {
        ...base,
        submissionId: 's',
        kind: 'careers-apply',
        cv: { url: 'https://cv.example/2' },
        data: { name: 'A', email: 'a@b.example', role: 'R', cv: 'https://link.example' },
      } as unknown as JobPayload,
      parsed,
    );
    expect(atTop.fields).toMatchObject({ 'CV File': 'https://cv.example/2', 'CV Link': 'https://link.example' });
  });

  it('is refused when a kind is missing, a contact kind has no email, or a table would merge on two fields', () => {
    const missing = structuredClone(mapping) as any;
    delete missing.kinds['usa-signup'];
    expect(() => parseAirtableMapping(missing)).toThrow(/kinds\.usa-signup/);
    const noEmail = structuredClone(mapping) as any;
    delete noEmail.kinds.contact.fields.email;
    expect(() => parseAirtableMapping(noEmail)).toThrow(/contact\.fields\.email/);
    const shared = structuredClone(mapping) as any;
    shared.kinds['creator-signup'].table = 'Contacts';
    expect(() => parseAirtableMapping(shared)).toThrow(/table "Contacts" would merge on both/);
  });

  it('sends the CV to whichever attachment field is named, and maps none when a kind names none', () => {
    const noAttachments = structuredClone(mapping) as any;
    delete noAttachments.kinds['careers-apply'].attachments;
    expect(parseAirtableMapping(noAttachments).kinds['careers-apply'].attachments).toEqual({});
    const renamed = structuredClone(mapping) as any;
    renamed.kinds['careers-apply'].attachments = { cv: 'Resume' };
    const write = toAirtableWrite(
      {
        ...base,
        submissionId: 's',
        kind: 'careers-apply',
        cv: { url: 'https://cv.example/3', filename: 'r.pdf' },
        data: { name: 'A', email: 'a@b.example', role: 'R' },
      } as unknown as DeliveredSubmission,
      parseAirtableMapping(renamed),
    );
    expect(write.fields.Resume).toEqual([{ url: 'https://cv.example/3', filename: 'r.pdf' }]);
  });

  it('is refused when an attachment names no file the worker delivers, or shares its field with another value', () => {
    const unknown = structuredClone(mapping) as any;
    unknown.kinds['careers-apply'].attachments = { resume: 'CV' };
    expect(() => parseAirtableMapping(unknown, 'm.json')).toThrow(
      /^Airtable mapping m\.json: kinds\.careers-apply\.attachments\.resume: an attachment names a stored file the worker delivers \(cv\)$/,
    );
    const empty = structuredClone(mapping) as any;
    empty.kinds['careers-apply'].attachments = { cv: ' ' };
    expect(() => parseAirtableMapping(empty)).toThrow(/attachments\.cv: an Airtable field name cannot be empty/);
    const notAnObject = structuredClone(mapping) as any;
    notAnObject.kinds['careers-apply'].attachments = 'CV';
    expect(() => parseAirtableMapping(notAnObject)).toThrow(/kinds\.careers-apply\.attachments/);
    const clashField = structuredClone(mapping) as any;
    clashField.kinds['careers-apply'].attachments = { cv: 'CV Link' };
    expect(() => parseAirtableMapping(clashField)).toThrow(
      /kinds\.careers-apply\.attachments\.cv: field "CV Link" is already written by fields\.cv$/,
    );
    const clashMeta = structuredClone(mapping) as any;
    clashMeta.kinds['careers-apply'].attachments = { cv: 'Submission ID' };
    expect(() => parseAirtableMapping(clashMeta)).toThrow(
      /field "Submission ID" is already written by meta\.submissionId/,
    );
  });
});

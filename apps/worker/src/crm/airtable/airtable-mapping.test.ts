import { describe, expect, it } from 'vitest';
import type { JobPayload } from '@forms/schemas';
import { loadAirtableMapping, parseAirtableMapping, toAirtableWrite } from './airtable-mapping.ts';

const mapping = loadAirtableMapping();
const base = { v: 1, recordId: 'con_1', acceptedAt: '2026-01-01T00:00:00.000Z' } as const;

describe('the default mapping', () => {
  it('merges contacts on their lower-cased email, keeping our ids beside', () => {
    const write = toAirtableWrite({ ...base, submissionId: 'sub_1', kind: 'contact-update', data: { email: 'Ada@Example.com', pricingTier: 'micro' } } as JobPayload, mapping);
    expect(write).toEqual({
      table: 'Contacts',
      mergeOn: 'Email',
      mergeValue: 'ada@example.com',
      fields: { Email: 'ada@example.com', 'Pricing Tier': 'micro', 'Submission ID': 'sub_1', 'Record ID': 'con_1', Form: 'contact-update', 'Accepted At': base.acceptedAt },
    });
  });

  it('merges every other kind on its submission id and leaves absent fields out', () => {
    const write = toAirtableWrite({ ...base, recordId: 'sub_2', submissionId: 'sub_2', kind: 'partner-webinar', data: { workEmail: 'g@co.example', fullName: 'Grace' } } as JobPayload, mapping);
    expect(write.table).toBe('Webinar Registrations');
    expect(write.mergeOn).toBe('Submission ID');
    expect(write.mergeValue).toBe('sub_2');
    expect(write.fields).not.toHaveProperty('Questions');
    expect(write.fields).toMatchObject({ Email: 'g@co.example', Name: 'Grace' });
  });
});

describe('a custom mapping', () => {
  const custom = structuredClone(mapping) as any;
  custom.kinds['careers-apply'].fields = { ...custom.kinds['careers-apply'].fields, 'cv.url': 'CV File', 'cv.size': 'CV Bytes' };

  it('reads dotted paths, in the data or at the top of the job (where CV details may travel)', () => {
    const parsed = parseAirtableMapping(custom);
    const inData = toAirtableWrite({ ...base, submissionId: 's', kind: 'careers-apply', data: { name: 'A', email: 'a@b.example', role: 'R', cv: { url: 'https://cv.example/1', size: 10 } } } as unknown as JobPayload, parsed);
    expect(inData.fields).toMatchObject({ 'CV File': 'https://cv.example/1', 'CV Bytes': 10 });
    expect(inData.fields).not.toHaveProperty('CV Link'); // an object is never sent as a cell value
    const atTop = toAirtableWrite({ ...base, submissionId: 's', kind: 'careers-apply', cv: { url: 'https://cv.example/2' }, data: { name: 'A', email: 'a@b.example', role: 'R', cv: 'https://link.example' } } as unknown as JobPayload, parsed);
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
});

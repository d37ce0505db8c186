import type { JobPayload, SpamJudgement } from '@forms/schemas';
import { expect, it } from 'vitest';
import { loadAirtableMapping, parseAirtableMapping, toAirtableWrite } from './airtable-mapping.ts';

// The spam fields of a delivered submission in Airtable: written when the job carries a judgement, as
// optional fields (a base set up before them may lack them); a mapping written before they existed loads.
const mapping = loadAirtableMapping();
const signup = {
  v: 1,
  submissionId: 'sub_s',
  recordId: 'sub_s',
  kind: 'caf-signup',
  acceptedAt: '2026-01-01T00:00:00.000Z',
  data: { email: 's@acme.io' },
} as const;

it('a judged submission carries its score and unsure reasons, as optional fields; marks are never delivered', () => {
  const judgement: SpamJudgement = {
    score: 0.6,
    reasons: [{ layer: 'rules', code: 'links', detail: '2', weight: 0.5 }],
    agent: 'Claude',
  };
  const write = toAirtableWrite({ ...signup, judgement } as JobPayload, mapping);
  expect(write.fields).toMatchObject({ 'Spam Score': 0.6, 'Spam Reasons': 'rules:links (2)' });
  expect(write.fields).not.toHaveProperty('Marked Spam');
  expect(write.optionalFields).toEqual(['Spam Score', 'Spam Reasons']);
  // Judged, the filter abstaining and nothing flagged: the fields are cleared (a contact's latest judged wins).
  const quiet = toAirtableWrite({ ...signup, judgement: { reasons: [] } } as JobPayload, mapping);
  expect(quiet.fields).toMatchObject({ 'Spam Score': null, 'Spam Reasons': '' });
});

it('an unjudged submission, or a mapping without the spam fields, writes none of them', () => {
  const unjudged = toAirtableWrite(signup as JobPayload, mapping);
  expect(Object.keys(unjudged.fields).filter((f) => f.startsWith('Spam'))).toEqual([]);
  expect(unjudged.optionalFields).toBeUndefined();
  const { spamScore: _, spamReasons: __, markedSpam: ___, ...olderMeta } = mapping.meta;
  const older = parseAirtableMapping({ ...mapping, meta: olderMeta });
  expect(older.meta).toMatchObject({ spamScore: null, spamReasons: null, markedSpam: null });
  const write = toAirtableWrite({ ...signup, judgement: { reasons: [], score: 0.2 } } as JobPayload, older);
  expect(Object.keys(write.fields).filter((f) => f.startsWith('Spam'))).toEqual([]);
});

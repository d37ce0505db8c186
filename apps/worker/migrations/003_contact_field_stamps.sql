-- Newer wins per field, not per record: for each field of a contact, the acceptance stamp of the write that
-- set it (`acceptanceStamp`: 15-digit epoch ms, '|', submission id; compared as text in the C collation).
-- With only last_accepted_at, an older write that filled a gap could not then be corrected by a write
-- newer than it but older than the record's newest.
ALTER TABLE contacts ADD COLUMN field_stamps jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Rows from before: each field counts as set at the row's newest acceptance (with no submission id).
UPDATE contacts SET field_stamps = (
  SELECT coalesce(jsonb_object_agg(k, lpad((extract(epoch FROM last_accepted_at) * 1000)::bigint::text, 15, '0') || '|'), '{}'::jsonb)
  FROM jsonb_object_keys(fields) AS k
);

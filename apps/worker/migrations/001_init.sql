-- One row per email: the merged fields of every contact and contact-update submission.
CREATE TABLE contacts (
  id text PRIMARY KEY,                       -- our contact id (the recordId answered for this email)
  email text NOT NULL UNIQUE,                -- lower-cased; the key of every contact upsert
  fields jsonb NOT NULL DEFAULT '{}'::jsonb, -- merged: newer submissions win per field, older ones fill gaps
  first_accepted_at timestamptz NOT NULL,
  last_accepted_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per accepted submission, whatever its kind.
CREATE TABLE submissions (
  id text PRIMARY KEY,          -- the submission id (the job's key); equals record_id except for contact kinds
  record_id text NOT NULL,      -- the recordId answered to the client (the contact id for contact kinds)
  kind text NOT NULL,
  email text NOT NULL,
  payload jsonb NOT NULL,       -- the validated, normalised request (unknown fields were already dropped)
  accepted_at timestamptz NOT NULL,
  delivered_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX submissions_email_idx ON submissions (email);
CREATE INDEX submissions_kind_accepted_at_idx ON submissions (kind, accepted_at);

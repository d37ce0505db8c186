-- A careers application's CV, kept in object storage: the row links it by key and describes the exact bytes.
-- All NULL for every other kind, and for an application sent without a CV.
ALTER TABLE submissions
  ADD COLUMN cv_key text,             -- object key in the CV bucket (cv/<submission id>.<ext>); never from the client
  ADD COLUMN cv_filename text,        -- the applicant's original file name, as sent (metadata only)
  ADD COLUMN cv_content_type text,    -- the checked type: application/pdf, application/msword or the DOCX type
  ADD COLUMN cv_size integer,         -- bytes (at most 5 MiB)
  ADD COLUMN cv_sha256 text,          -- lower-case hex of the stored bytes
  -- true when a CV was sent but could not be kept (storage down at the gateway, or for the job's whole
  -- retry window): the application stands, and whoever reads it knows to ask for the CV again.
  ADD COLUMN cv_upload_failed boolean NOT NULL DEFAULT false;

-- What the spam layers thought of a delivered submission, for the people who read the CRM: the content
-- filter's score (0 to 1; sortable, highest first is the likeliest spam) and the reasons that flagged it
-- without holding it ("unsure": half-weight flags that did not add up to 1). Both NULL for a submission
-- queued unjudged (before this, or released from the quarantine); a judged one without reasons has '{}'.
ALTER TABLE submissions
  ADD COLUMN spam_score double precision,
  ADD COLUMN spam_reasons text[],
  -- true once ops marked it as spam (`ops spam mark`): the record stays, marked.
  ADD COLUMN marked_spam boolean NOT NULL DEFAULT false;

-- A contact's: those of its latest judged submission (newer wins, by acceptance stamp, like its fields;
-- `spam_stamp` is that submission's `acceptanceStamp`). Marked once any of its submissions was marked.
ALTER TABLE contacts
  ADD COLUMN spam_score double precision,
  ADD COLUMN spam_reasons text[],
  ADD COLUMN spam_stamp text,
  ADD COLUMN marked_spam boolean NOT NULL DEFAULT false;

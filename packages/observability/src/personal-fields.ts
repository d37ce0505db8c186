/**
 * Fields of a submission that name or reach a person. Logs never carry them (pino redacts them at any of
 * the depths our log lines use) and `ops show` masks them unless asked to reveal. Free text (`message`,
 * `note`, `questions`) may hold anything, so logs drop the whole submission (`data`, `body`, `payload`)
 * rather than trusting a list of fields.
 */
export const PERSONAL_FIELDS = [
  'email',
  'workEmail',
  'name',
  'fullName',
  'phoneNumber',
  'whatsappNumber',
  'linkedin',
  'instagram',
  'tiktok',
  'youtube',
  'x',
] as const;

/** Whole values that are a submission, or a request carrying one: never logged. */
export const SUBMISSION_CARRIERS = ['data', 'body', 'payload', 'cvFile', 'submission'] as const;

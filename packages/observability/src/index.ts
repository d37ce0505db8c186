/** Shared by gateway, worker and the ops CLI: PII-free logging, masking for display, the admin token check. */
export { createLogger, REDACT_PATHS } from './create-logger.ts';
export { logSafeText } from './log-safe-text.ts';
export { maskPii } from './mask-pii.ts';
export { PERSONAL_FIELDS, SUBMISSION_CARRIERS } from './personal-fields.ts';
export { scrubPii } from './scrub-pii.ts';
export { tokenMatches } from './token-matches.ts';

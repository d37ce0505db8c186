export * from './held-submissions.ts';
export * from './hold-submission.ts';
export * from './review-held.ts';
export * from './with-deadline.ts';

export * from './held-submissions.ts';
export * from './review-held.ts';

export * from './hold-submission.ts';
export * from './with-deadline.ts';

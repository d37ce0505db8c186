// The key names live in @forms/schemas, so erase (in the worker) removes exactly what the gateway writes.
export { keyHash as hash, type SubmissionKeys, submissionKeys } from '@forms/schemas';

export {
  type CallOptions,
  type ClientOptions,
  createFormsClient,
  type FormsClient,
  type JobApplication,
  type SignupKind,
  type SubmissionAnswer,
  type SubmissionInput,
} from './create-forms-client.ts';
export type { FormError, FormResult } from './form-result.ts';
export type { RetryOptions } from './send-with-retry.ts';

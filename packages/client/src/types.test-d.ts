import type { SignupKind, SubmissionAnswer, SubmissionInput } from './create-forms-client.ts';

// Checked by `tsc`: the client's types follow the endpoint list in @forms/schemas.
type Expect<T extends true> = T;

export type Checks = [
  Expect<SignupKind extends 'cpa' | 'caf' | 'cdg' | 'sfa' | 'rebriefing' | 'usa' | 'creator' ? true : false>,
  Expect<'cpa' | 'caf' | 'cdg' | 'sfa' | 'rebriefing' | 'usa' | 'creator' extends SignupKind ? true : false>,
  Expect<SubmissionInput<'partner-webinar'> extends { workEmail: string; fullName: string } ? true : false>,
  Expect<SubmissionInput<'contact'> extends { email: string } ? true : false>,
  Expect<SubmissionAnswer<'careers-apply'> extends { cvUploadFailed: boolean } ? true : false>,
  Expect<SubmissionAnswer<'contact'> extends { recordId: string; isWorkEmail: boolean } ? true : false>,
];

// Type tests: checked by `tsc` in the typecheck task (expectTypeOf is a no-op at run time).
import type * as v from 'valibot';
import { expectTypeOf } from 'vitest';
import type {
  CareersApplyRequestOutput,
  ContactRequestOutput,
  ContactUpdateRequestInput,
  JobCatalog,
  JobName,
  JobPayload,
  PartnerWebinarRequestOutput,
  SubmissionKind,
  UsaSignupRequestOutput,
} from './index.ts';

expectTypeOf<ContactRequestOutput['email']>().toEqualTypeOf<string>();
expectTypeOf<ContactRequestOutput['name']>().toEqualTypeOf<string | undefined>();
expectTypeOf<ContactUpdateRequestInput['usingInfluencers']>().toEqualTypeOf<boolean | string | undefined>();
expectTypeOf<ContactUpdateRequestInput['influencersPerMonth']>().toEqualTypeOf<number | string | undefined>();
expectTypeOf<UsaSignupRequestOutput['already_working_with_influencers']>().toEqualTypeOf<boolean | undefined>();
expectTypeOf<PartnerWebinarRequestOutput>().toHaveProperty('workEmail').toEqualTypeOf<string>();
expectTypeOf<CareersApplyRequestOutput['cvFile']>()
  .exclude<undefined>()
  .toHaveProperty('contentType')
  .toEqualTypeOf<
    'application/pdf' | 'application/msword' | 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  >();
expectTypeOf<JobPayload<'careers-apply'>['data']>().not.toHaveProperty('cvFile');
expectTypeOf<JobPayload<'contact'>['kind']>().toEqualTypeOf<'contact'>();
// The payload type `toJobPayload` builds is exactly what the catalog's schema parses to, kind by kind.
expectTypeOf<JobPayload<'contact'>>().toEqualTypeOf<v.InferOutput<JobCatalog['contact.v1']>>();
expectTypeOf<JobPayload<'careers-apply'>>().toEqualTypeOf<v.InferOutput<JobCatalog['careers-apply.v1']>>();
expectTypeOf<JobPayload<'partner-webinar'>>().toEqualTypeOf<v.InferOutput<JobCatalog['partner-webinar.v1']>>();
expectTypeOf<JobPayload>().toEqualTypeOf<v.InferOutput<JobCatalog[JobName]>>();
expectTypeOf<SubmissionKind>().toEqualTypeOf<
  | 'contact'
  | 'contact-update'
  | 'cpa-signup'
  | 'caf-signup'
  | 'cdg-signup'
  | 'sfa-signup'
  | 'rebriefing-signup'
  | 'usa-signup'
  | 'creator-signup'
  | 'careers-apply'
  | 'partner-webinar'
>();

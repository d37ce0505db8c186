import type { SubmissionKind } from '@forms/schemas';

/** A valid body for every endpoint, with a unique email; used by integration, fault and load tests. */
export function validBody(kind: SubmissionKind, tag: string): Record<string, unknown> {
  const email = `${tag}@acme-${kind}.io`;
  switch (kind) {
    case 'contact':
      return {
        email,
        name: 'Ada Lovelace',
        phoneNumber: '+44 20 0000 0000',
        userType: 'brand',
        message: 'Hello',
        affiliatesPerMonth: '10',
      };
    case 'contact-update':
      return {
        email,
        name: 'Ada',
        usingInfluencers: true,
        influencersPerMonth: 12,
        monthlyBudget: '5k',
        planOnUsingInfluencers: 'yes',
        pricingTier: 'micro',
        sourcePage: '/pricing',
        calculatorSummary: '12 creators',
        hearAboutUs: 'LinkedIn',
      };
    case 'cpa-signup':
    case 'sfa-signup':
    case 'rebriefing-signup':
      return { email, phoneNumber: '+1 555 0100' };
    case 'caf-signup':
    case 'cdg-signup':
      return { email };
    case 'usa-signup':
      return { email, name: 'Sam', gifted_or_allowlisted: 'gifted', already_working_with_influencers: true };
    case 'creator-signup':
      return {
        email,
        name: 'Cleo',
        instagram: '@cleo',
        tiktok: '@cleo',
        youtube: '@cleo',
        x: '@cleo',
        whatsappNumber: '+1 555 0101',
      };
    case 'careers-apply':
      return {
        name: 'Grace Hopper',
        email,
        role: 'Engineer',
        linkedin: 'https://linkedin.com/in/grace',
        cv: 'https://example.com/cv.pdf',
        note: 'Hi',
      };
    case 'partner-webinar':
      return { fullName: 'Katherine Johnson', workEmail: email, questions: 'When?' };
  }
}

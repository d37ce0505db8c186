import {
  CaseStudySchema,
  SERVICE_IDS,
  type ServiceId,
  ServiceSchema,
  SUBMISSION_ENDPOINTS,
  SUBMISSION_KINDS,
  type SubmissionKind,
} from '@forms/schemas';
import * as v from 'valibot';
import type { GatewayConfig } from '../../config.ts';
import { CONTENT_DIR, readDataFile } from './content-files.ts';

/**
 * The one content source. The discovery files, the MCP tools and resources and the widgets are all
 * rendered from what `siteContent` returns, so they cannot disagree. The prose lives in `data/*.json`, read
 * and checked at start-up, written with the API description's placeholders, `{base_url}` and
 * `<CONTACT_EMAIL>`, filled from PUBLIC_BASE_URL and CONTACT_EMAIL in one place. Rule for anything added
 * there: no prices, clients or figures we do not have.
 */

// The data files' schemas are strict, so a misspelt key stops start-up instead of vanishing. Services
// and case studies reuse the wire schemas the MCP tools answer with, so the data cannot drift from them.
const ServiceTextSchema = v.strictObject({
  ...v.omit(ServiceSchema, ['id', 'signup']).entries,
  whenToUse: v.string(),
});
const ServicesFileSchema = v.strictObject(
  Object.fromEntries(SERVICE_IDS.map((id) => [id, ServiceTextSchema])) as Record<ServiceId, typeof ServiceTextSchema>,
);
const CaseStudiesFileSchema = v.array(v.strictObject(CaseStudySchema.entries));
const ComparisonSchema = v.strictObject({
  alternative: v.string(),
  whatItIs: v.string(),
  chooseItWhen: v.string(),
  howWeDiffer: v.string(),
});
const OtherFormSchema = v.strictObject({
  title: v.string(),
  kind: v.picklist(SUBMISSION_KINDS),
  description: v.string(),
});
const AgencySchema = v.strictObject({
  tagline: v.string(),
  summary: v.string(),
  about: v.array(v.string()),
  howWeWork: v.array(v.string()),
  caseStudiesNote: v.string(),
  comparisonsIntro: v.string(),
  forCreators: v.string(),
  agentNotes: v.strictObject({
    authentication: v.array(v.string()),
    events: v.string(),
    etiquette: v.array(v.string()),
  }),
  pricing: v.strictObject({ approach: v.string(), principles: v.array(v.string()), howToGetAQuote: v.string() }),
});

export type Service = v.InferOutput<typeof ServiceTextSchema> & {
  id: ServiceId;
  signup: { method: 'POST'; url: string; workEmailOnly: boolean; kind: SubmissionKind };
};
export type CaseStudy = v.InferOutput<typeof CaseStudySchema>;
export type Comparison = v.InferOutput<typeof ComparisonSchema>;
type Agency = v.InferOutput<typeof AgencySchema>;

export type SiteContent = Omit<Agency, 'pricing'> & {
  name: string;
  baseUrl: string;
  contactEmail: string;
  services: Service[];
  caseStudies: CaseStudy[];
  pricing: Agency['pricing'] & { rates: GatewayConfig['pricing'] };
  comparisons: Comparison[];
  otherForms: v.InferOutput<typeof OtherFormSchema>[];
};

/** Which submission endpoint signs a visitor up for each service. */
const SIGNUP_KIND = {
  'creator-partnership-ads': 'cpa-signup',
  'content-analysis-framework': 'caf-signup',
  'creator-discovery-guide': 'cdg-signup',
  'seeding-affiliate-playbook': 'sfa-signup',
  'rebriefing-playbook': 'rebriefing-signup',
  'usa-programme': 'usa-signup',
} as const satisfies Record<ServiceId, SubmissionKind>;

function servicesWithSignup(texts: v.InferOutput<typeof ServicesFileSchema>, baseUrl: string): Service[] {
  return SERVICE_IDS.map((id) => {
    const endpoint = SUBMISSION_ENDPOINTS.find((e) => e.kind === SIGNUP_KIND[id])!;
    return {
      id,
      ...texts[id],
      signup: {
        method: 'POST' as const,
        url: `${baseUrl}${endpoint.path}`,
        workEmailOnly: endpoint.workEmailOnly,
        kind: endpoint.kind,
      },
    };
  });
}

/** Fills the API description's placeholders in every string of `value`. */
function fill<T>(value: T, baseUrl: string, contactEmail: string): T {
  if (typeof value === 'string')
    return value.replaceAll('{base_url}', baseUrl).replaceAll('<CONTACT_EMAIL>', contactEmail) as T;
  if (Array.isArray(value)) return value.map((item) => fill(item, baseUrl, contactEmail)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, fill(item, baseUrl, contactEmail)])) as T;
  }
  return value;
}

/** Reads the data files (from `dir`, the content folder unless a test says otherwise) into the content. */
export function siteContent(
  config: Pick<GatewayConfig, 'publicBaseUrl' | 'contactEmail' | 'agencyName' | 'pricing'>,
  dir = CONTENT_DIR,
): SiteContent {
  const { pricing, ...agency } = readDataFile('data/agency.json', AgencySchema, dir);
  const content: SiteContent = {
    name: config.agencyName,
    baseUrl: '{base_url}',
    contactEmail: '<CONTACT_EMAIL>',
    ...agency,
    services: servicesWithSignup(readDataFile('data/services.json', ServicesFileSchema, dir), '{base_url}'),
    caseStudies: readDataFile('data/case-studies.json', CaseStudiesFileSchema, dir),
    pricing: { ...pricing, rates: config.pricing },
    comparisons: readDataFile('data/comparisons.json', v.array(ComparisonSchema), dir),
    otherForms: readDataFile('data/other-forms.json', v.array(OtherFormSchema), dir),
  };
  return fill(content, config.publicBaseUrl, config.contactEmail);
}

/** The submission endpoint for `kind`, with its absolute URL. */
export function endpointUrl(content: SiteContent, kind: SubmissionKind): { method: string; url: string; path: string } {
  const endpoint = SUBMISSION_ENDPOINTS.find((e) => e.kind === kind)!;
  return { method: endpoint.method, url: `${content.baseUrl}${endpoint.path}`, path: endpoint.path };
}

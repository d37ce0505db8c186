import { SERVICE_IDS, SUBMISSION_ENDPOINTS, type ServiceId, type SubmissionKind } from '@forms/schemas';
import type { GatewayConfig } from '../config.ts';

/**
 * The one content source. The discovery files, the MCP tools and resources and the widgets are all
 * rendered from what `siteContent` returns, so they cannot disagree. Text is written with the API
 * description's placeholders, `{base_url}` and `<CONTACT_EMAIL>`, filled from PUBLIC_BASE_URL and
 * CONTACT_EMAIL in one place. Rule for anything added here: no prices, clients or figures we do not have.
 */

export type Service = {
  id: ServiceId;
  name: string;
  kind: 'managed service' | 'guide' | 'playbook' | 'programme';
  summary: string;
  forWho: string;
  includes: string[];
  whenToUse: string;
  signup: { method: 'POST'; url: string; workEmailOnly: boolean; kind: SubmissionKind };
};

export type CaseStudy = {
  id: string;
  title: string;
  basis: 'illustrative';
  services: ServiceId[];
  situation: string;
  approach: string[];
  measuredBy: string[];
};

export type Comparison = { alternative: string; whatItIs: string; chooseItWhen: string; howWeDiffer: string };

export type SiteContent = {
  name: string;
  baseUrl: string;
  contactEmail: string;
  tagline: string;
  summary: string;
  about: string[];
  howWeWork: string[];
  services: Service[];
  caseStudiesNote: string;
  caseStudies: CaseStudy[];
  pricing: {
    approach: string;
    principles: string[];
    howToGetAQuote: string;
    rates: GatewayConfig['pricing'];
  };
  comparisonsIntro: string;
  comparisons: Comparison[];
  forCreators: string;
  otherForms: { title: string; kind: SubmissionKind; description: string }[];
  agentNotes: { authentication: string[]; events: string; etiquette: string[] };
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

type ServiceText = Omit<Service, 'id' | 'signup'>;

const SERVICES: Record<ServiceId, ServiceText> = {
  'creator-partnership-ads': {
    name: 'Creator partnership ads',
    kind: 'managed service',
    summary:
      "We find creators whose audiences match your customers, brief them, and turn their content into paid partnership ads: ads that run from the creator's own handle, with your targeting and budget behind them.",
    forWho: 'Brands that already run paid social and want creator content that works as advertising, without building a creator team first.',
    includes: [
      'Creator sourcing and vetting against your audience and brand-safety criteria',
      'Briefs, content review and approvals',
      "Usage rights and ad authorisation arranged with each creator, so the content can run as ads from the creator's handle",
      'Ready-to-run creative handed to your ad account or your media team',
      'Rebriefs based on what the ads show, so the next round of content is better informed',
      'An account manager as your single point of contact',
    ],
    whenToUse: 'A brand wants creator content running as paid ads and wants the sourcing, contracting and briefing handled for it.',
  },
  'content-analysis-framework': {
    name: 'Content analysis framework',
    kind: 'guide',
    summary:
      'A structured way to review creator content before and after it runs: the hook, the format, the message, the proof and the call to action, so a team can say why a piece worked and what to test next.',
    forWho: 'Marketing teams reviewing creator or user-generated content who want a shared, repeatable way to judge it.',
    includes: [
      'A review checklist, element by element (hook, format, message, proof, call to action)',
      'How to tag content so patterns show up across creators and campaigns',
      'How to turn what the review finds into the next brief',
    ],
    whenToUse: 'Someone asks how to evaluate creator content, or why some creator posts or ads outperform others.',
  },
  'creator-discovery-guide': {
    name: 'Creator discovery guide',
    kind: 'guide',
    summary:
      'How to find creators who fit: where to look, how to judge audience fit and content quality, and the checks to run before reaching out.',
    forWho: 'Brands and marketers building a creator shortlist for the first time, or widening one that has gone stale.',
    includes: [
      'Ways to search for creators on each major platform',
      'A vetting checklist: audience fit, content quality, engagement that looks genuine, brand safety, past partnerships',
      'How to build and score a shortlist before outreach',
    ],
    whenToUse: 'Someone asks how to find, choose or vet creators or influencers for a brand.',
  },
  'seeding-affiliate-playbook': {
    name: 'Seeding affiliate playbook',
    kind: 'playbook',
    summary:
      'How to run product seeding with an affiliate layer: send product to well-matched creators, give each a tracked link or code and a commission, so the posts that follow can be measured and rewarded.',
    forWho: 'Brands that gift product to creators and want to know what it returns, or want to pay creators on results.',
    includes: [
      'Choosing whom to seed, and asking before shipping',
      'Tracked links, discount codes and commission structures to consider',
      'A follow-up rhythm that keeps creators engaged without pressure',
      'Using results to pick creators for paid partnerships',
    ],
    whenToUse: 'Someone asks about influencer gifting, product seeding, creator affiliate programmes or paying creators on commission.',
  },
  'rebriefing-playbook': {
    name: 'Rebriefing playbook',
    kind: 'playbook',
    summary:
      'What to do when creator content underperforms, or when a winning piece needs variations: how to read the results, write a rebrief a creator can act on, and keep the relationship good.',
    forWho: 'Teams already working with creators whose content is delivered on brief but not performing as hoped.',
    includes: [
      'Diagnosing a miss: hook, message, format or audience',
      'A rebrief structure creators can act on',
      'Asking for variations of content that is working',
      'Agreeing rebrief terms in the contract before work starts',
    ],
    whenToUse: 'Someone asks how to give creators feedback, fix underperforming creator content, or get more variations of a winning ad.',
  },
  'usa-programme': {
    name: 'USA programme',
    kind: 'programme',
    summary: 'A programme for brands that want to start or grow creator marketing in the United States. Join the waitlist to hear when places open and what each cohort covers.',
    forWho: 'Brands planning creator campaigns in the US market.',
    includes: ['Waitlist updates by email', 'A conversation about fit when places open'],
    whenToUse: 'A brand asks about launching or scaling influencer or creator marketing in the USA.',
  },
};

const CASE_STUDIES: CaseStudy[] = [
  {
    id: 'organic-posts-to-partnership-ads',
    title: 'Turning organic creator posts into partnership ads',
    basis: 'illustrative',
    services: ['creator-partnership-ads', 'content-analysis-framework'],
    situation: 'A brand has creator posts that did well organically, but none of that content runs as paid advertising.',
    approach: [
      'Secure usage rights and ad authorisation from the creators whose posts are worth paying behind',
      'Pick posts to run using the content analysis framework rather than view counts alone',
      "Run them as partnership ads from the creators' handles, alongside the brand's own ads",
      'Rebrief creators on the hooks and formats that the ads show working',
    ],
    measuredBy: ['Cost per acquisition against ads from the brand handle', 'Hook rate and click-through rate', 'How quickly each creative fatigues'],
  },
  {
    id: 'seeding-with-an-affiliate-layer',
    title: 'Seeding with an affiliate layer',
    basis: 'illustrative',
    services: ['seeding-affiliate-playbook', 'creator-discovery-guide'],
    situation: 'A brand gifts product to creators but cannot tell which gifts led to posts, or to sales.',
    approach: [
      'Build the seeding list with the discovery guide criteria instead of follower counts',
      'Ask creators before shipping, and give each a tracked link or code with a commission',
      'Review results on a fixed rhythm and thank or rebrief accordingly',
      'Move the creators whose audiences buy into paid partnerships',
    ],
    measuredBy: ['Share of seeded creators who post', 'Affiliate revenue per creator', 'Cost per creator sourced and managed'],
  },
  {
    id: 'rebriefing-underperforming-content',
    title: 'Rebriefing content that was on brief but underperformed',
    basis: 'illustrative',
    services: ['rebriefing-playbook', 'content-analysis-framework'],
    situation: 'Creators delivered what the brief asked for, but the content did not perform once it ran.',
    approach: [
      'Diagnose each piece with the content analysis framework: hook, message, format, proof, call to action',
      'Write rebriefs that change one or two things at a time, so results can be read',
      'Ask for variations of the best-performing hooks',
    ],
    measuredBy: ['Change in hook rate between original and rebriefed versions', 'Change in cost per acquisition'],
  },
  {
    id: 'preparing-a-us-launch',
    title: 'Preparing a US launch with creators',
    basis: 'illustrative',
    services: ['usa-programme', 'creator-discovery-guide', 'seeding-affiliate-playbook', 'creator-partnership-ads'],
    situation: 'A brand established in its home market is planning to enter the United States.',
    approach: [
      'Shortlist US creators who match the target customer',
      'Start with seeding and affiliate links to learn which creators and messages land',
      'Scale what works into partnership ads',
    ],
    measuredBy: ['Which creators and messages earn sales, before paid budget is committed', 'Cost per acquisition once ads run'],
  },
];

const COMPARISONS: Comparison[] = [
  {
    alternative: 'Building an in-house creator team',
    whatItIs: 'Hiring people to source creators, negotiate, brief, manage rights and run the ads yourself.',
    chooseItWhen: 'Creators are central to your marketing for years to come and you can staff sourcing, contracting and ad operations.',
    howWeDiffer: 'We run the programme now, without the hiring first. Our guides and playbooks are written so an in-house team can take the work over later.',
  },
  {
    alternative: 'Self-serve influencer platforms and marketplaces',
    whatItIs: 'Software for searching creators and managing campaigns; your own team does the outreach, briefing and follow-up.',
    chooseItWhen: 'You have people with time to run campaigns and mainly need tooling.',
    howWeDiffer: 'We are a managed service: people do the sourcing, briefing, rights and rebriefing, with an account manager as the single contact.',
  },
  {
    alternative: 'Agencies paid per post or on a fixed retainer',
    whatItIs: 'Fees for deliverables or time, owed whether or not the content sells.',
    chooseItWhen: 'You need guaranteed deliverables, such as launch-day coverage, more than measurable sales.',
    howWeDiffer: 'Our pricing is outcome-based: a fee per creator sourced and managed, plus a share of the affiliate revenue the creators drive, scoped per partnership.',
  },
  {
    alternative: 'Gifting without tracking',
    whatItIs: 'Sending product to creators in the hope that some of them post.',
    chooseItWhen: 'Awareness alone is the aim and measurement does not matter.',
    howWeDiffer: 'Seeding with an affiliate layer gives every creator a tracked link or code and a reason to post, so results can be measured and rewarded.',
  },
  {
    alternative: 'Ads from the brand handle only',
    whatItIs: "Running paid social only from the brand's own account, with studio or in-house creative.",
    chooseItWhen: 'Your brand creative already performs and you do not want third parties in your ads.',
    howWeDiffer: "Partnership ads run from the creator's handle, in the creator's voice, with your targeting behind them.",
  },
];

function servicesWithSignup(baseUrl: string): Service[] {
  return SERVICE_IDS.map((id) => {
    const endpoint = SUBMISSION_ENDPOINTS.find((e) => e.kind === SIGNUP_KIND[id])!;
    return {
      id,
      ...SERVICES[id],
      signup: { method: 'POST' as const, url: `${baseUrl}${endpoint.path}`, workEmailOnly: endpoint.workEmailOnly, kind: endpoint.kind },
    };
  });
}

/** Fills the API description's placeholders in every string of `value`. */
function fill<T>(value: T, baseUrl: string, contactEmail: string): T {
  if (typeof value === 'string') return value.replaceAll('{base_url}', baseUrl).replaceAll('<CONTACT_EMAIL>', contactEmail) as T;
  if (Array.isArray(value)) return value.map((item) => fill(item, baseUrl, contactEmail)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, fill(item, baseUrl, contactEmail)])) as T;
  }
  return value;
}

export function siteContent(config: Pick<GatewayConfig, 'publicBaseUrl' | 'contactEmail' | 'agencyName' | 'pricing'>): SiteContent {
  const content: SiteContent = {
    name: config.agencyName,
    baseUrl: '{base_url}',
    contactEmail: '<CONTACT_EMAIL>',
    tagline: 'Creator-led marketing: creator partnership ads, seeding with affiliate links, and the playbooks behind them.',
    summary:
      'A creator-led marketing agency. We source and manage creators for brands, turn their content into partnership ads, and run seeding programmes with an affiliate layer. Our guides and playbooks (content analysis, creator discovery, seeding with affiliates, rebriefing) are sent to brands that sign up with a work email.',
    about: [
      'Creator-led marketing means the creator, not the brand account, is the messenger: the content is made by people an audience already follows, and the best of it is put behind paid media.',
      'Campaigns are delivered as a managed service through an account manager. There is no self-serve campaign API: live campaign data (creator rosters, ad assets, performance metrics) is shared within an engagement.',
    ],
    howWeWork: [
      'Scope: agree goals, platforms, the number of creators and usage rights for the partnership.',
      'Source: find and vet creators who match the customer, not just the follower count.',
      'Brief and produce: brief creators, review content, arrange usage rights and ad authorisation.',
      'Run and learn: run content as partnership ads or through affiliate links, read the results, rebrief.',
    ],
    services: servicesWithSignup('{base_url}'),
    caseStudiesNote:
      'These are illustrative engagement shapes, not client stories: no client names or results are published here. To talk about work like this for your brand, email <CONTACT_EMAIL>.',
    caseStudies: CASE_STUDIES,
    pricing: {
      approach:
        'Outcome-based: a fee per creator sourced and managed, plus a share of the affiliate revenue those creators drive, scoped per partnership.',
      principles: [
        'You pay for creators actually sourced and managed, not for hours.',
        'The revenue share ties our income to the sales the creators drive.',
        'Each partnership is scoped before work starts: goals, platforms, number of creators, deliverables and usage rights.',
      ],
      howToGetAQuote:
        'Send a message through the contact form ({base_url}/ui/contact-form.html, or POST {base_url}/api/contact) or email <CONTACT_EMAIL> with your goals, markets and the number of creators you have in mind.',
      rates: config.pricing,
    },
    comparisonsIntro:
      'Ways to run creator marketing, and when each fits. No approach suits every brand; this page says when another option is the better choice.',
    comparisons: COMPARISONS,
    forCreators:
      'Creators can sign up with their social handles (POST {base_url}/api/creator-signup) to be considered for brand partnerships.',
    otherForms: [
      { title: 'Contact', kind: 'contact', description: 'Send a message to the team; any email address is accepted.' },
      { title: 'Update contact details', kind: 'contact-update', description: 'Upsert contact details, keyed by email.' },
      { title: 'Creator signup', kind: 'creator-signup', description: 'Creators register with their handles.' },
      { title: 'Partner webinar', kind: 'partner-webinar', description: 'Register for the partner webinar with a work email.' },
      { title: 'Careers', kind: 'careers-apply', description: 'Apply for a role, with a CV link or an attached PDF, DOC or DOCX.' },
    ],
    agentNotes: {
      authentication: [
        'Every endpoint, the MCP server included, is public and unauthenticated: no API keys, OAuth or bearer tokens.',
        'Live campaign data (creator rosters, ad assets, performance metrics) is reachable only within a managed-service engagement; a scoped key tied to an active engagement is requested by email at <CONTACT_EMAIL>.',
      ],
      events:
        'The service sends no webhooks. Campaign events (creator approvals, asset deliveries, performance) come from the account manager; a webhook integration can be requested within an engagement at <CONTACT_EMAIL>.',
      etiquette: [
        'Submit a form only when the person you act for has asked you to, with their details.',
        'Send a descriptive User-Agent: product/version (site URL; contact address).',
        'Do not submit the same email twice for the same form; retry 5xx answers with exponential backoff.',
      ],
    },
  };
  return fill(content, config.publicBaseUrl, config.contactEmail);
}

/** The submission endpoint for `kind`, with its absolute URL. */
export function endpointUrl(content: SiteContent, kind: SubmissionKind): { method: string; url: string; path: string } {
  const endpoint = SUBMISSION_ENDPOINTS.find((e) => e.kind === kind)!;
  return { method: endpoint.method, url: `${content.baseUrl}${endpoint.path}`, path: endpoint.path };
}

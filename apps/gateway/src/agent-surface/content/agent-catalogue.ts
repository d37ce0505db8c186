import {
  CaseStudiesSchema,
  ContactFormSchema,
  GetPricingInputSchema,
  ListServicesInputSchema,
  MCP_APP_MIME_TYPE,
  PRICING_WIDGET_NAME,
  PricingEstimateSchema,
  ServiceCatalogueSchema,
  ShowCaseStudiesInputSchema,
  ShowContactFormInputSchema,
  ShowPricingCalculatorInputSchema,
  ShowServicesInputSchema,
  WIDGET_NAMES,
  type WidgetName,
} from '@forms/schemas';
import type * as v from 'valibot';
import type { SiteContent } from './content.ts';

/**
 * What the MCP server offers, described once: the tools and resources that /api/mcp lists, the MCP
 * manifest, agents.md and llms-full.txt are all read from here.
 */

export type ToolName =
  | 'list_services'
  | 'show_services'
  | 'show_contact_form'
  | 'show_case_studies'
  | 'get_pricing'
  | 'show_pricing_calculator';

type ToolEntry = {
  name: ToolName;
  title: string;
  description: string;
  input: v.GenericSchema;
  output: v.GenericSchema;
  widget?: WidgetName;
};

type TextResourceEntry = {
  uri: string;
  path: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
};
export type WidgetResourceEntry = {
  uri: string;
  name: WidgetName;
  title: string;
  description: string;
  mimeType: typeof MCP_APP_MIME_TYPE;
  url: string;
};

const widgetUri = (name: WidgetName) => `ui://service/${name}`;

const WIDGET_TEXT: Record<WidgetName, { title: string; description: string }> = {
  services: {
    title: 'Services catalogue',
    description: 'Cards for each service, with who it is for and what it includes.',
  },
  'contact-form': {
    title: 'Contact form',
    description: 'A form that sends a message to the team (POST /api/contact) and shows the answer.',
  },
  'case-studies': { title: 'Case studies', description: 'Illustrative engagement shapes, filterable by service.' },
  'pricing-calculator': {
    title: 'Pricing calculator',
    description: 'Estimates fees from the published per-creator fee and revenue share.',
  },
};

export function widgetNames(c: SiteContent): WidgetName[] {
  return c.pricing.rates ? [...WIDGET_NAMES, PRICING_WIDGET_NAME] : [...WIDGET_NAMES];
}

export function toolCatalogue(c: SiteContent): ToolEntry[] {
  const tools: ToolEntry[] = [
    {
      name: 'list_services',
      title: 'List services',
      description: `List ${c.name}'s services (creator partnership ads, guides, playbooks, the USA programme): what each is, who it is for, what it includes and how to sign up. Use when someone asks what the agency offers or which service fits their situation.`,
      input: ListServicesInputSchema,
      output: ServiceCatalogueSchema,
    },
    {
      name: 'show_services',
      title: 'Show services catalogue',
      description:
        'Show the services catalogue as an interactive widget. Use when the user wants to browse the services rather than read a list.',
      input: ShowServicesInputSchema,
      output: ServiceCatalogueSchema,
      widget: 'services',
    },
    {
      name: 'show_contact_form',
      title: 'Show contact form',
      description:
        'Show a contact form the user fills in themselves; it posts to /api/contact and shows the answer. Use when the user wants to get in touch, ask for a quote or start a partnership.',
      input: ShowContactFormInputSchema,
      output: ContactFormSchema,
      widget: 'contact-form',
    },
    {
      name: 'show_case_studies',
      title: 'Show case studies',
      description:
        'Show illustrative engagement shapes (situation, approach, what is measured), optionally for one service. No client names or results are published.',
      input: ShowCaseStudiesInputSchema,
      output: CaseStudiesSchema,
      widget: 'case-studies',
    },
  ];
  if (c.pricing.rates) {
    tools.push(
      {
        name: 'get_pricing',
        title: 'Estimate pricing',
        description:
          'Estimate fees for a partnership from the published per-creator fee and affiliate revenue share. An estimate only: every partnership is scoped before work starts.',
        input: GetPricingInputSchema,
        output: PricingEstimateSchema,
      },
      {
        name: 'show_pricing_calculator',
        title: 'Show pricing calculator',
        description: 'Show a pricing calculator widget built on the published rates.',
        input: ShowPricingCalculatorInputSchema,
        output: PricingEstimateSchema,
        widget: PRICING_WIDGET_NAME,
      },
    );
  }
  return tools;
}

export function textResources(c: SiteContent): TextResourceEntry[] {
  const entry = (path: string, title: string, description: string, mimeType: string) => ({
    uri: `${c.baseUrl}${path}`,
    path,
    name: path.slice(1),
    title,
    description,
    mimeType,
  });
  return [
    entry('/llms.txt', 'llms.txt', 'Product summary for LLMs', 'text/plain'),
    entry('/llms-full.txt', 'llms-full.txt', 'Full product documentation', 'text/plain'),
    entry(
      '/openapi.json',
      'OpenAPI description',
      'Every endpoint, schema and error code (OpenAPI 3.1)',
      'application/json',
    ),
    entry('/agents.md', 'Agent guide', 'How agents integrate; authentication', 'text/markdown'),
    entry('/pricing.md', 'Pricing approach', 'Outcome-based pricing', 'text/markdown'),
  ];
}

export function widgetResources(c: SiteContent): WidgetResourceEntry[] {
  return widgetNames(c).map((name) => ({
    uri: widgetUri(name),
    name,
    ...WIDGET_TEXT[name],
    mimeType: MCP_APP_MIME_TYPE,
    url: `${c.baseUrl}/ui/${name}.html`,
  }));
}

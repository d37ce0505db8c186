import {
  CaseStudiesSchema,
  ContactFormSchema,
  PricingEstimateSchema,
  ServiceCatalogueSchema,
  type ServiceId,
} from '@forms/schemas';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import * as v from 'valibot';
import { type ToolName, toolCatalogue } from '../content/agent-catalogue.ts';
import type { SiteContent } from '../content/content.ts';
import { caseStudyMarkdown, serviceMarkdown } from '../content/markdown.ts';
import { CONTACT_FORM_FIELDS } from '../content/widgets/contact-form-widget.ts';
import { estimatePricing } from './estimate-pricing.ts';

type Args = Record<string, unknown>;
type Answer = { text: string; structured: Record<string, unknown> };

function services(c: SiteContent, service?: ServiceId): Answer {
  const chosen = c.services.filter((s) => !service || s.id === service);
  return {
    text: [...chosen.map(serviceMarkdown), `Pricing: ${c.pricing.approach}`, `Contact: ${c.contactEmail}`].join('\n\n'),
    structured: v.parse(ServiceCatalogueSchema, {
      services: chosen,
      contactEmail: c.contactEmail,
      pricingApproach: c.pricing.approach,
    }),
  };
}

const HANDLERS: Record<ToolName, (c: SiteContent, args: Args) => Answer> = {
  list_services: (c, args) => services(c, args.service as ServiceId | undefined),
  show_services: (c, args) => {
    const answer = services(c, args.service as ServiceId | undefined);
    return { ...answer, text: `Showing the services catalogue (${c.baseUrl}/ui/services.html).\n\n${answer.text}` };
  },
  show_contact_form: (c, args) => {
    const form = v.parse(ContactFormSchema, {
      endpoint: `${c.baseUrl}/api/contact`,
      method: 'POST',
      fields: CONTACT_FORM_FIELDS.map((f) => ({ ...f })),
      ...(args.userType ? { userType: args.userType } : {}),
      contactEmail: c.contactEmail,
    });
    return {
      text: `Showing the contact form (${c.baseUrl}/ui/contact-form.html). The user fills it in; it posts to ${form.endpoint}. Only the email is required. Or email ${c.contactEmail}.`,
      structured: form,
    };
  },
  show_case_studies: (c, args) => {
    const chosen = c.caseStudies.filter((cs) => !args.service || cs.services.includes(args.service as ServiceId));
    return {
      text: [
        `Showing case studies (${c.baseUrl}/ui/case-studies.html). ${c.caseStudiesNote}`,
        ...chosen.map((cs) => caseStudyMarkdown(cs, c)),
      ].join('\n\n'),
      structured: v.parse(CaseStudiesSchema, { caseStudies: chosen, note: c.caseStudiesNote }),
    };
  },
  get_pricing: (c, args) => {
    const estimate = estimatePricing(c.pricing.rates!, args as { creators: number; affiliateRevenue?: number });
    return { text: estimate.note, structured: v.parse(PricingEstimateSchema, estimate) };
  },
  show_pricing_calculator: (c) => {
    const estimate = estimatePricing(c.pricing.rates!, { creators: 10 });
    return {
      text: `Showing the pricing calculator (${c.baseUrl}/ui/pricing-calculator.html). ${estimate.note}`,
      structured: v.parse(PricingEstimateSchema, estimate),
    };
  },
};

/**
 * tools/call. An unknown tool is a protocol error (JSON-RPC -32602); arguments that fail the tool's schema
 * are a tool error (`isError: true`) the model can read and correct, as the MCP spec asks.
 */
export function callTool(c: SiteContent, name: string, args: unknown): CallToolResult {
  const tool = toolCatalogue(c).find((t) => t.name === name);
  if (!tool)
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the tools on offer.`);
  const parsed = v.safeParse(tool.input, args ?? {});
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? 'arguments'}: ${issue.message}`).join('; ');
    return { isError: true, content: [{ type: 'text', text: `Invalid arguments for ${name}: ${problems}` }] };
  }
  const answer = HANDLERS[tool.name](c, parsed.output as Args);
  return {
    content: [{ type: 'text', text: answer.text }],
    structuredContent: answer.structured,
    ...(tool.widget ? { _meta: { ui: { resourceUri: `ui://service/${tool.widget}` } } } : {}),
  };
}

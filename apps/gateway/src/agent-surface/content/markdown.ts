import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import type { CaseStudy, Comparison, Service, SiteContent } from './content.ts';

/** Markdown blocks shared by the documents; each document picks the ones it needs. */

export function serviceMarkdown(s: Service): string {
  return [
    `### ${s.name}`,
    '',
    `${s.summary}`,
    '',
    `- Kind: ${s.kind}`,
    `- For: ${s.forWho}`,
    `- When to suggest it: ${s.whenToUse}`,
    `- Sign up: \`${s.signup.method} ${s.signup.url}\`${s.signup.workEmailOnly ? ' (work email required)' : ''}`,
    '',
    'Includes:',
    '',
    ...s.includes.map((item) => `- ${item}`),
  ].join('\n');
}

export function caseStudyMarkdown(cs: CaseStudy, c: SiteContent): string {
  const names = cs.services.map((id) => c.services.find((s) => s.id === id)!.name).join(', ');
  return [
    `### ${cs.title}`,
    '',
    `Illustrative. Services: ${names}.`,
    '',
    `Situation: ${cs.situation}`,
    '',
    'Approach:',
    '',
    ...cs.approach.map((step, i) => `${i + 1}. ${step}`),
    '',
    `Measured by: ${cs.measuredBy.join('; ')}.`,
  ].join('\n');
}

export function comparisonMarkdown(cmp: Comparison): string {
  return [
    `## ${cmp.alternative}`,
    '',
    cmp.whatItIs,
    '',
    `- Choose it when: ${cmp.chooseItWhen}`,
    `- How we differ: ${cmp.howWeDiffer}`,
  ].join('\n');
}

export function pricingMarkdown(c: SiteContent): string {
  const rates = c.pricing.rates;
  return [
    c.pricing.approach,
    '',
    ...c.pricing.principles.map((p) => `- ${p}`),
    '',
    rates
      ? `Published rates: ${rates.currency} ${rates.feePerCreator} per creator sourced and managed, plus ${rates.revenueSharePercent}% of affiliate revenue. The scope of each partnership is agreed before work starts.`
      : 'There is no published rate card: every partnership is quoted after a scoping conversation.',
    '',
    `How to get a quote: ${c.pricing.howToGetAQuote}`,
  ].join('\n');
}

export function endpointsMarkdown(c: SiteContent): string {
  return [
    '| Method | URL | Purpose | Work email only |',
    '| --- | --- | --- | --- |',
    ...SUBMISSION_ENDPOINTS.map(
      (e) => `| ${e.method} | ${c.baseUrl}${e.path} | ${e.summary} | ${e.workEmailOnly ? 'yes' : 'no'} |`,
    ),
    `| GET | ${c.baseUrl}/api/latest-video | The newest video of the channel | - |`,
    `| POST | ${c.baseUrl}/api/mcp | MCP server (JSON-RPC 2.0, Streamable HTTP) | - |`,
  ].join('\n');
}

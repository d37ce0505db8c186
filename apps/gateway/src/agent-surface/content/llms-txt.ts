import type { SiteContent } from './content.ts';
import { fillTemplate } from './content-files.ts';

/** /llms.txt in the llmstxt.org shape: H1, a blockquote summary, then H2 sections of annotated links. */
export function renderLlmsTxt(c: SiteContent): string {
  return fillTemplate('documents/llms.md', {
    intro: llmsIntro(c),
    baseUrl: c.baseUrl,
    contactEmail: c.contactEmail,
    pricingApproach: c.pricing.approach,
    services: c.services.map((s) => `- [${s.name}](${c.baseUrl}/llms-full.txt): ${s.kind}. ${s.summary}`).join('\n'),
  });
}

/** The opening both /llms.txt and /llms-full.txt share: the H1, the blockquote summary, the about text. */
export function llmsIntro(c: SiteContent): string {
  return [`# ${c.name}`, `> ${c.summary}`, ...c.about].join('\n\n');
}

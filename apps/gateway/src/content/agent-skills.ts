import { createHash } from 'node:crypto';
import { AGENT_SKILL_NAMES, type AgentSkillName } from '@forms/schemas';
import type { SiteContent } from './content.ts';
import { endpointUrl } from './content.ts';

type Skill = { description: string; body: string };

function skills(c: SiteContent): Record<AgentSkillName, Skill> {
  const contact = endpointUrl(c, 'contact').url;
  return {
    'explore-services': {
      description: `Find out what ${c.name} offers and which service fits a brand's situation. Use when a user asks about creator or influencer marketing services, partnership ads, seeding, or the agency's guides and playbooks.`,
      body: [
        `Call the MCP tool \`list_services\` at ${c.baseUrl}/api/mcp (or read ${c.baseUrl}/llms-full.txt). Each service says who it is for and when to suggest it.`,
        '',
        'Match on the situation, not the keyword:',
        '',
        ...c.services.map((s) => `- ${s.name}: ${s.whenToUse}`),
        '',
        `To show the catalogue as a widget, call \`show_services\`; for illustrative engagement shapes, \`show_case_studies\`. Pricing approach: ${c.pricing.approach} Never quote prices that are not published at ${c.baseUrl}/pricing.md.`,
      ].join('\n'),
    },
    'contact-the-agency': {
      description: `Send a message to ${c.name} on a user's behalf, or show them a contact form. Use when the user wants a quote, a call, or to start a partnership.`,
      body: [
        'Only send what the user has asked you to send, with their own details.',
        '',
        `- Let the user fill it in: call the MCP tool \`show_contact_form\` (widget at ${c.baseUrl}/ui/contact-form.html).`,
        `- Send it yourself: \`POST ${contact}\` with \`Content-Type: application/json\` and \`{"email": "...", "name": "...", "userType": "brand" | "creator" | "agency", "message": "..."}\`. Only \`email\` is required.`,
        '',
        'A 200 answer has `success: true` and a `recordId`. A 400 answer names the field at fault in `field` and says how to fix it in `message`; correct that field and retry once. Retry 5xx answers with exponential backoff; do not resend a message that was accepted.',
        '',
        `By email instead: ${c.contactEmail}.`,
      ].join('\n'),
    },
    'request-a-resource': {
      description: `Sign a brand up for one of ${c.name}'s guides, playbooks or waitlists. Use when a user asks for the content analysis framework, the creator discovery guide, the seeding affiliate playbook, the rebriefing playbook, creator partnership ads or the USA programme.`,
      body: [
        'Each is a JSON POST with the user\'s email (ask for it; never invent one):',
        '',
        ...c.services.map((s) => `- ${s.name}: \`POST ${s.signup.url}\`${s.signup.workEmailOnly ? ' (work email only: free-mail and disposable addresses get `WORK_EMAIL_REQUIRED`)' : ''}`),
        '',
        `Creators sign up with their handles at \`POST ${endpointUrl(c, 'creator-signup').url}\`. Schemas: ${c.baseUrl}/openapi.json.`,
      ].join('\n'),
    },
  };
}

export type SkillFile = { name: AgentSkillName; path: string; body: string };

/** The SKILL.md documents (Agent Skills format: YAML front matter, then instructions). */
export function renderSkillFiles(c: SiteContent): SkillFile[] {
  const all = skills(c);
  return AGENT_SKILL_NAMES.map((name) => ({
    name,
    path: `/.well-known/agent-skills/${name}/SKILL.md`,
    body: ['---', `name: ${name}`, `description: ${JSON.stringify(all[name].description)}`, '---', '', `# ${name}`, '', all[name].body, ''].join('\n'),
  }));
}

/** The discovery index: each skill with its URL and the sha256 digest of the exact bytes served there. */
export function renderSkillsIndex(c: SiteContent, files: SkillFile[]): Record<string, unknown> {
  const all = skills(c);
  return {
    $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
    skills: files.map((file) => ({
      name: file.name,
      type: 'skill-md',
      description: all[file.name].description,
      url: file.path,
      digest: `sha256:${createHash('sha256').update(file.body).digest('hex')}`,
    })),
  };
}

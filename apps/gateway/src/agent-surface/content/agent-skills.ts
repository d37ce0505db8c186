import { createHash } from 'node:crypto';
import { AGENT_SKILL_NAMES, type AgentSkillName } from '@forms/schemas';
import type { SiteContent } from './content.ts';
import { endpointUrl } from './content.ts';
import { fillTemplate } from './content-files.ts';

type Skill = { description: string; body: string };

/**
 * Each skill's description (one line, also listed in the discovery index) and its instructions, which are
 * `documents/skills/<name>.md` with the URLs and service lists filled in.
 */
function skills(c: SiteContent): Record<AgentSkillName, Skill> {
  const body = (name: AgentSkillName, slots: Record<string, string>) =>
    fillTemplate(`documents/skills/${name}.md`, { baseUrl: c.baseUrl, ...slots }).trimEnd();
  return {
    'explore-services': {
      description: `Find out what ${c.name} offers and which service fits a brand's situation. Use when a user asks about creator or influencer marketing services, partnership ads, seeding, or the agency's guides and playbooks.`,
      body: body('explore-services', {
        whenToUse: c.services.map((s) => `- ${s.name}: ${s.whenToUse}`).join('\n'),
        pricingApproach: c.pricing.approach,
      }),
    },
    'contact-the-agency': {
      description: `Send a message to ${c.name} on a user's behalf, or show them a contact form. Use when the user wants a quote, a call, or to start a partnership.`,
      body: body('contact-the-agency', { contactUrl: endpointUrl(c, 'contact').url, contactEmail: c.contactEmail }),
    },
    'request-a-resource': {
      description: `Sign a brand up for one of ${c.name}'s guides, playbooks or waitlists. Use when a user asks for the content analysis framework, the creator discovery guide, the seeding affiliate playbook, the rebriefing playbook, creator partnership ads or the USA programme.`,
      body: body('request-a-resource', {
        signups: c.services
          .map(
            (s) =>
              `- ${s.name}: \`POST ${s.signup.url}\`${s.signup.workEmailOnly ? ' (work email only: free-mail and disposable addresses get `WORK_EMAIL_REQUIRED`)' : ''}`,
          )
          .join('\n'),
        creatorSignupUrl: endpointUrl(c, 'creator-signup').url,
      }),
    },
  };
}

type SkillFile = { name: AgentSkillName; path: string; body: string };

/** The SKILL.md documents (Agent Skills format: YAML front matter, then instructions). */
export function renderSkillFiles(c: SiteContent): SkillFile[] {
  const all = skills(c);
  return AGENT_SKILL_NAMES.map((name) => ({
    name,
    path: `/.well-known/agent-skills/${name}/SKILL.md`,
    body: [
      '---',
      `name: ${name}`,
      `description: ${JSON.stringify(all[name].description)}`,
      '---',
      '',
      `# ${name}`,
      '',
      all[name].body,
      '',
    ].join('\n'),
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

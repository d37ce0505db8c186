import { createHash } from 'node:crypto';

/**
 * Where ChatGPT and Claude show widgets: their chat pages, and the sandbox origins they render widget
 * iframes in (ChatGPT under oaiusercontent.com, Claude under claudemcpcontent.com and claudeusercontent.com).
 */
export const CHAT_FRAME_ANCESTORS = [
  'https://chatgpt.com',
  'https://chat.openai.com',
  'https://*.oaiusercontent.com',
  'https://claude.ai',
  'https://*.claude.ai',
  'https://*.claudeusercontent.com',
  'https://*.claudemcpcontent.com',
];

export function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

/**
 * The widget's Content-Security-Policy. Inline script and style are allowed by hash, not 'unsafe-inline';
 * the only network the page may use is our own API (the contact form's POST).
 */
export function widgetCsp({ origin, script, style }: { origin: string; script: string; style: string }): string {
  return [
    "default-src 'none'",
    `script-src ${sha256Source(script)}`,
    `style-src ${sha256Source(style)}`,
    "img-src 'self' data:",
    `connect-src 'self' ${origin}`,
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors 'self' ${CHAT_FRAME_ANCESTORS.join(' ')}`,
  ].join('; ');
}

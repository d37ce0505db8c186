/**
 * The `Forms-Agent` header: the name an AI agent (or an agent's tool) gives itself when it submits through
 * the documented API. Such a submission meets the content layers only (no challenge to solve) and is marked
 * as the agent's wherever it is held. Anything but a short plain name is ignored (the header is not sent).
 */
export function readAgentName(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const name = header.trim();
  return /^[\w .:/@+-]{1,64}$/.test(name) ? name : undefined;
}

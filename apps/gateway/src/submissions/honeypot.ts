import { HONEYPOT_FIELD } from '@forms/schemas';

/**
 * True when the raw body has the honeypot field filled: anything but absent, null or a blank string
 * (what a person's browser sends for the hidden, empty input). Read before validation drops it as an
 * unknown field, so it never reaches a job.
 */
export function honeypotFilled(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  const value = (body as Record<string, unknown>)[HONEYPOT_FIELD];
  return value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');
}

/**
 * The free text the spam layers read from a submission: every string field but the email (the rules read the
 * email on its own). The gateway reads a request this way, and `ops spam mark|release` a kept payload, so the
 * filter learns from exactly what it scores.
 */
export function freeTexts(data: object, emailField: string): string[] {
  const texts: string[] = [];
  for (const [field, value] of Object.entries(data))
    if (field !== emailField && typeof value === 'string') texts.push(value);
  return texts;
}

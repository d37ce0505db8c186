import { expect, it } from 'vitest';
import { REDACTED, redactValues } from './redact-values.ts';

it('removes the values sent, and anything shaped like an email or a phone number, keeping the rest', () => {
  const message =
    'Insufficient permissions to create new select option ""mid"" in field Tier; middle; ' +
    'Cannot parse value "Ada Lovelace" for field Name; ada@acme.io and other@x.org; call +44 (20) 7946-0958';
  expect(redactValues(message, { Tier: 'mid', Name: 'Ada Lovelace', nested: [{ Email: 'ada@acme.io' }] })).toBe(
    `Insufficient permissions to create new select option ""${REDACTED}"" in field Tier; middle; ` +
      `Cannot parse value [value] for field Name; ${REDACTED} and [email]; call [phone]`,
  );
});

it('leaves a message with no values as it is', () => {
  expect(redactValues('Field "Instagram" cannot accept the provided value', { Instagram: 'x' })).toBe(
    'Field "Instagram" cannot accept the provided value',
  );
  expect(redactValues('Airtable 503 SERVICE_UNAVAILABLE: down since 2026-01-01', {})).toBe(
    'Airtable 503 SERVICE_UNAVAILABLE: down since 2026-01-01',
  );
});

it('removes an email the record did not send whatever its domain (one with a digit or a non-Latin top-level domain leaked)', () => {
  const message = 'Cannot match "ana@correo.рф" nor "bo@intra.c0m" for field Referrer';
  const redacted = redactValues(message, { Name: 'Ana' });
  expect(redacted).not.toContain('ana@');
  expect(redacted).not.toContain('bo@');
  expect(redacted).toContain('for field Referrer');
});

import fc from 'fast-check';

/**
 * Characters that stores, encoders and trimmers treat specially: NUL, lone high and low surrogates, a
 * valid pair, C0 and C1 controls, DEL, white space of several kinds, noncharacters, a BOM, a line separator.
 */
const AWKWARD_CHARACTERS = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ud83d',
  '\ude00',
  '😀',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\t',
  '\n',
  '\r',
  ' ',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\ufffe',
  '\uffff',
  'é',
  '"',
  '\\',
] as const;

/** Strings of awkward characters mixed with any single code unit or code point, up to `maxLength` units. */
export function awkwardText({ minLength = 0, maxLength = 40 } = {}): fc.Arbitrary<string> {
  return fc.string({
    unit: fc.oneof(
      fc.constantFrom(...AWKWARD_CHARACTERS),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    ),
    minLength,
    maxLength,
  });
}

/**
 * What docs/api.md#decisions-the-api-description-leaves-open promises a stored string is: NUL removed, each lone surrogate replaced with U+FFFD,
 * white space trimmed. Written here from the rule, not imported, so the test checks the gateway.
 */
export function storedForm(sent: string): string {
  const wellFormed = (sent.replaceAll('\u0000', '') as string & { toWellFormed(): string }).toWellFormed();
  return wellFormed.trim();
}

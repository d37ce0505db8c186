import * as v from 'valibot';
import { expect, it } from 'vitest';
import { parseEnv } from './env.ts';

const Schema = v.object({ PORT: v.optional(v.pipe(v.string(), v.regex(/^\d+$/, 'must be a port number')), '3000') });

it('treats empty values as unset and names the variable at fault', () => {
  expect(parseEnv(Schema, { PORT: '' })).toEqual({ PORT: '3000' });
  expect(parseEnv(Schema, { PORT: '8080', OTHER: 'x' })).toEqual({ PORT: '8080' });
  expect(() => parseEnv(Schema, { PORT: 'eighty' })).toThrow('Invalid configuration: PORT must be a port number');
});

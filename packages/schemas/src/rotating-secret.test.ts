import { describe, expect, it } from 'vitest';
import { erasureSecrets } from './erasure.ts';
import { adminTokens } from './shared-env.ts';

// One rule for every rotated secret: the previous one is accepted beside the current one, never alone.
describe('a rotated secret', () => {
  it('keeps the current one first and the previous beside it', () => {
    expect(erasureSecrets({ ERASURE_KEY: 'new', ERASURE_KEY_PREVIOUS: 'old' })).toEqual({
      erasureKey: 'new',
      erasureKeyPrevious: 'old',
    });
    expect(adminTokens({ ADMIN_TOKEN: 'new' })).toEqual({ adminToken: 'new', adminTokenPrevious: undefined });
  });

  it('refuses a previous one without a current one, naming both and what to set', () => {
    expect(() => erasureSecrets({ ERASURE_KEY_PREVIOUS: 'old' })).toThrow(
      'Invalid configuration: ERASURE_KEY_PREVIOUS is set but ERASURE_KEY is not; set ERASURE_KEY to the new key',
    );
    expect(() => adminTokens({ ADMIN_TOKEN_PREVIOUS: 'old' })).toThrow(
      'Invalid configuration: ADMIN_TOKEN_PREVIOUS is set but ADMIN_TOKEN is not; set ADMIN_TOKEN to the new token',
    );
  });
});

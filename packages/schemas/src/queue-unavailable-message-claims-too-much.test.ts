import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './errors.ts';

// Issue 8.8: the 503 said the submission "was not recorded", but after the enqueue deadline Redis may still
// complete the add (seen with CLIENT PAUSE: 503 at 1.0 s, the job delivered later).
describe('QUEUE_UNAVAILABLE', () => {
  it('says the submission may not have been recorded, and that a retry with the same key is safe', () => {
    const message = ERROR_CODES.QUEUE_UNAVAILABLE.message();
    expect(message).not.toMatch(/was not recorded/);
    expect(message).toMatch(/may not have been recorded/);
    expect(message).toMatch(/Idempotency-Key/);
  });
});

import { describe, expect, it } from 'vitest';
import { unsupportedNodeMessage } from './supported-node.js';

describe('unsupportedNodeMessage', () => {
  it('refuses Node 20 and 22 before 22.18 in one line naming both versions', () => {
    for (const version of ['20.20.2', '22.17.1', '18.0.0']) {
      const message = unsupportedNodeMessage(version);
      expect(message).toContain(`found ${version}`);
      expect(message).toContain('22.18 or newer');
      expect(message).not.toContain('\n');
    }
  });

  it('accepts 22.18 and later, 24 and 26', () => {
    for (const version of ['22.18.0', '22.23.1', '24.21.0', '26.12.1'])
      expect(unsupportedNodeMessage(version)).toBe(undefined);
  });
});

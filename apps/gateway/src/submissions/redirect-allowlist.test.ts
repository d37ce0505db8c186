import { describe, expect, it } from 'vitest';
import { redirectAllowlist } from './redirect-allowlist.ts';

describe('redirectAllowlist: never an open redirect', () => {
  const allowed = redirectAllowlist(['https://www.acme.example/thanks.html', 'https://acme.example/forms/']);

  it('allows a listed page, and any page under an entry ending in /', () => {
    expect(allowed('https://www.acme.example/thanks.html')?.href).toBe('https://www.acme.example/thanks.html');
    expect(allowed('https://www.acme.example/thanks.html?lang=en')?.search).toBe('?lang=en');
    expect(allowed('https://acme.example/forms/contact/sent.html')).toBeDefined();
    expect(allowed('https://acme.example/forms/../forms/ok.html')?.pathname).toBe('/forms/ok.html');
  });

  it('refuses everything else, however it is spelled', () => {
    for (const target of [
      'https://www.acme.example/other.html',
      'https://www.acme.example/thanks.html/x',
      'http://www.acme.example/thanks.html',
      'https://www.acme.example:8443/thanks.html',
      'https://www.acme.example.evil.example/thanks.html',
      'https://www.acme.example@evil.example/thanks.html',
      'https://user:pw@www.acme.example/thanks.html',
      'https://acme.example/forms/../admin/',
      'https://acme.example/formsx/',
      '//evil.example/',
      '/thanks.html',
      'javascript:alert(1)',
      'data:text/html,hi',
      '',
      42,
      undefined,
    ]) {
      expect(allowed(target), String(target)).toBeUndefined();
    }
  });

  it('with no entries, allows nothing', () => {
    expect(redirectAllowlist([])('https://www.acme.example/thanks.html')).toBeUndefined();
  });
});

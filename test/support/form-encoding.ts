import { randomBytes } from 'node:crypto';

export type FormEncoding = 'urlencoded' | 'multipart';
export type EncodedForm = { contentType: string; body: Buffer };

/**
 * A form's fields as a browser posts them: `application/x-www-form-urlencoded` (URLSearchParams' encoding),
 * or `multipart/form-data` written out by hand, byte for byte, so a value reaches the gateway as it is (the
 * FormData encoders turn a lone "\n" into "\r\n", as browsers do, which would move a string across its cap).
 */
export function encodeForm(fields: readonly (readonly [string, string])[], encoding: FormEncoding): EncodedForm {
  if (encoding === 'urlencoded') {
    return {
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(new URLSearchParams(fields.map(([k, v]) => [k, v])).toString()),
    };
  }
  const boundary = `----forms${randomBytes(12).toString('hex')}`;
  const parts = fields.map(([name, value]) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      Buffer.from(wellFormed(value), 'utf8'),
      Buffer.from('\r\n'),
    ]),
  );
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
  };
}

/** A name a form can carry as it is in both encodings (no quote, backslash or line break in a part header). */
export function formSafeName(name: string): boolean {
  return name !== '' && !/["\\\r\n]/.test(name) && wellFormed(name) === name;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What a string becomes in UTF-8, as both encodings send it: each lone surrogate is U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

import { createHash } from 'node:crypto';
import { CV_MAX_BYTES } from '@forms/schemas';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.ts';
import { decodeCv } from './decode-cv.ts';

const PDF_TYPE = 'application/pdf';
const DOC_TYPE = 'application/msword';
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
const doc = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(1024)]);
const docx = Buffer.from(
  zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    'word/document.xml': strToU8('<w:document/>'),
  }),
);
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('decodeCv', () => {
  it.each([
    ['PDF', pdf, PDF_TYPE],
    ['DOC', doc, DOC_TYPE],
    ['DOCX', docx, DOCX_TYPE],
  ] as const)('accepts a %s whose bytes match its type, with size and SHA-256', async (_name, bytes, contentType) => {
    const cv = await decodeCv({ filename: 'cv', contentType, data: bytes.toString('base64') });
    expect(cv.bytes.equals(bytes)).toBe(true);
    expect(cv).toMatchObject({
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType,
    });
  });

  it('strips a base64 data-URL prefix, and accepts unpadded, URL-safe and line-wrapped base64', async () => {
    const b64 = pdf.toString('base64');
    for (const data of [
      `data:application/pdf;base64,${b64}`,
      b64.replace(/=+$/, ''),
      pdf.toString('base64url'),
      b64.replace(/(.{8})/g, '$1\r\n'),
    ]) {
      expect((await decodeCv({ filename: 'cv.pdf', contentType: PDF_TYPE, data })).bytes.equals(pdf)).toBe(true);
    }
  });

  it('refuses what is not base64 (Node alone would skip the junk)', async () => {
    for (const data of ['not base64!', 'JVBERi0x$', 'A', 'data:application/pdf,%25PDF-1.4', 'JVBE+i0_']) {
      expect((await rejection(decodeCv({ filename: 'cv.pdf', contentType: PDF_TYPE, data }))).code).toBe(
        'CV_INVALID_BASE64',
      );
    }
  });

  it('refuses bytes that are not what contentType says, naming what they look like', async () => {
    const png2pdf = await rejection(
      decodeCv({ filename: 'cv.pdf', contentType: PDF_TYPE, data: png.toString('base64') }),
    );
    expect(png2pdf.code).toBe('CV_CONTENT_MISMATCH');
    expect(png2pdf.message).toContain('PNG');
    expect(
      (await rejection(decodeCv({ filename: 'cv.docx', contentType: DOCX_TYPE, data: pdf.toString('base64') }))).code,
    ).toBe('CV_CONTENT_MISMATCH');
    expect(
      (await rejection(decodeCv({ filename: 'cv.doc', contentType: DOC_TYPE, data: docx.toString('base64') }))).code,
    ).toBe('CV_CONTENT_MISMATCH');
    const text = await rejection(
      decodeCv({ filename: 'cv.pdf', contentType: PDF_TYPE, data: Buffer.from('hello').toString('base64') }),
    );
    expect(text.message).toContain('no recognised type');
    const bareZip = Buffer.from(zipSync({ 'a.txt': strToU8('hi') }));
    expect(
      (await rejection(decodeCv({ filename: 'cv.docx', contentType: DOCX_TYPE, data: bareZip.toString('base64') })))
        .code,
    ).toBe('CV_CONTENT_MISMATCH');
  });

  it('refuses a CV over the limit with a 413', async () => {
    const big = Buffer.concat([pdf, Buffer.alloc(CV_MAX_BYTES)]);
    const err = await rejection(decodeCv({ filename: 'cv.pdf', contentType: PDF_TYPE, data: big.toString('base64') }));
    expect([err.code, err.status]).toEqual(['CV_TOO_LARGE', 413]);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { strToU8, zipSync } from 'fflate';

export const PDF_TYPE = 'application/pdf';
export const DOC_TYPE = 'application/msword';
export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A tiny PDF: the `%PDF-` header, one object, a trailer. Random filler keeps every file distinct. */
export function samplePdf(fillerBytes = 64): Buffer {
  return Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj<< /Type /Catalog >>endobj\n% '),
    randomBytes(fillerBytes),
    Buffer.from('\ntrailer<< /Root 1 0 R >>\n%%EOF\n'),
  ]);
}

/** A DOC as far as a sniffer can tell: the OLE2 compound-file header (sector size 512), then padding. */
export function sampleDoc(): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(header);
  header.writeUInt16LE(0x003e, 0x18); // minor version
  header.writeUInt16LE(0x0003, 0x1a); // major version 3
  header.writeUInt16LE(0xfffe, 0x1c); // little-endian
  header.writeUInt16LE(9, 0x1e); // 2^9 = 512-byte sectors
  return Buffer.concat([header, randomBytes(1536)]);
}

/** A minimal DOCX: an Office Open XML package whose [Content_Types].xml names word/document.xml. */
export function sampleDocx(): Buffer {
  return Buffer.from(
    zipSync({
      '[Content_Types].xml': strToU8(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
      'word/document.xml': strToU8(
        `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${randomBytes(8).toString('hex')}</w:t></w:r></w:p></w:body></w:document>`,
      ),
    }),
  );
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A careers-apply body carrying `bytes` as its CV. */
export function careersBody(
  tag: string,
  bytes: Buffer,
  contentType: string,
  filename = 'Grace Hopper CV.pdf',
): Record<string, unknown> {
  return {
    name: 'Grace Hopper',
    email: `${tag}@acme-careers.io`,
    role: 'Engineer',
    cvFile: { filename, contentType, data: bytes.toString('base64') },
  };
}

/** An S3 client for checking what landed in the bucket, set up like the apps' own. */
export function inspectionClient(env: Record<string, string>): S3Client {
  return new S3Client({
    region: 'us-east-1',
    endpoint: env.S3_ENDPOINT!,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** The object's bytes and headers, or undefined when it is not there. */
export async function readObject(client: S3Client, bucket: string, key: string) {
  try {
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return { bytes: Buffer.from(await got.Body!.transformToByteArray()), head };
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
    throw err;
  }
}

/**
 * A careers job whose staged CV never existed (as after a staging bucket lost it): the worker must still
 * deliver the application, marked as having lost its CV.
 */
export function jobWithLostCv(id: string) {
  return {
    v: 1,
    submissionId: id,
    recordId: id,
    kind: 'careers-apply',
    acceptedAt: new Date().toISOString(),
    data: {
      name: 'N',
      email: `${id}@acme.io`,
      role: 'R',
      stagedCv: {
        key: `incoming/cv/${id}.pdf`,
        filename: 'cv.pdf',
        contentType: PDF_TYPE,
        size: 10,
        sha256: 'b'.repeat(64),
      },
    },
  };
}

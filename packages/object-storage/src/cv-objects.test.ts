import { describe, expect, it } from 'vitest';
import { cvContentDisposition, cvMetadata, finalCvKey, safeCvFilename, stagedCvKey } from './cv-objects.ts';

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('CV object keys', () => {
  it('come from the submission id and checked type only', () => {
    expect(stagedCvKey('sub_01abc', PDF)).toBe('incoming/cv/sub_01abc.pdf');
    expect(finalCvKey('sub_01abc', DOCX)).toBe('cv/sub_01abc.docx');
  });
  it('refuse anything that is not an id', () => {
    expect(() => finalCvKey('../etc/passwd', PDF)).toThrow(/Not a submission id/);
  });
});

describe('safeCvFilename', () => {
  it('drops paths, control characters and quotes, and forces the checked extension', () => {
    expect(safeCvFilename('../../etc/"evil"\n.exe', PDF)).toBe('evil.exe.pdf');
    expect(safeCvFilename('C:\\Users\\me\\Lebenslauf Müller.PDF', PDF)).toBe('Lebenslauf Müller.pdf');
    expect(safeCvFilename('...', DOCX)).toBe('cv.docx');
    expect(safeCvFilename('x'.repeat(300), PDF)).toHaveLength(100);
  });
});

describe('cvContentDisposition', () => {
  it('gives an ASCII fallback and the UTF-8 name', () => {
    expect(cvContentDisposition('Lebenslauf Müller.pdf', PDF)).toBe(
      `attachment; filename="Lebenslauf Muller.pdf"; filename*=UTF-8''Lebenslauf%20M%C3%BCller.pdf`,
    );
  });
});

describe('cvMetadata', () => {
  it('keeps header-safe values', () => {
    expect(cvMetadata({ filename: 'mé cv.pdf', sha256: 'ab', submissionId: 'sub_1' })).toEqual({
      'original-filename': 'm%C3%A9%20cv.pdf',
      sha256: 'ab',
      'submission-id': 'sub_1',
    });
  });
});

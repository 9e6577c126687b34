/** Any client file name becomes a relative path that stays in its folder, or is refused as a field error. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILE_NAME_CHARS } from '@iris/shared';
import { RecordFieldError } from '../data-sets/record-rules.js';
import { fileName, fileUrl } from './file-names.js';

const BASE = 'https://cn-east.iris.example.com';
const SHA = 'a'.repeat(64);
const segment = fc.oneof(fc.constantFrom('.', '..', '', ' ', 'a b', '%2e%2e', '?x=1', '#frag', '名字'), fc.string({ maxLength: 20 }));
const names = fc.oneof(fc.string({ maxLength: 1000 }), fc.tuple(fc.array(segment, { maxLength: 12 }), fc.constantFrom('/', '\\')).map(([parts, separator]) => parts.join(separator)));

describe('uploaded file names', () => {
  it('are normalised to a bounded relative path whose URL decodes back to it, or refused', () => {
    fc.assert(
      fc.property(names, (raw) => {
        let name: string;
        try {
          name = fileName(raw);
        } catch (err) {
          expect(err).toBeInstanceOf(RecordFieldError);
          return;
        }
        const parts = name.split('/');
        expect(parts.every((p) => p !== '' && p !== '.' && p !== '..' && p === p.trim())).toBe(true);
        expect([...name].length).toBeLessThanOrEqual(FILE_NAME_CHARS);
        expect(fileName(name)).toBe(name);
        let url: string;
        try {
          url = fileUrl(BASE, SHA, name);
        } catch (err) {
          expect(err).toBeInstanceOf(RecordFieldError);
          return;
        }
        const parsed = new URL(url);
        expect(parsed.origin).toBe(BASE);
        expect(parsed.search + parsed.hash).toBe('');
        expect(parsed.pathname.split('/').slice(4).map(decodeURIComponent).join('/')).toBe(name);
      }),
      { numRuns: 2000 },
    );
  });
});

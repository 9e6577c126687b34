import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError } from '@iris/shared';
import { within } from '../../../test/support/time-bound.js';
import { LineScanner, parseBatchUrls, scanBatchLines } from './batch-urls.js';

/** What a line scan must answer: the file split at every line end, trimmed, empty lines skipped. */
function splitWhole(text: string, max: number) {
  const lines = text
    .split(/\r\n|\n|\r/)
    .map((raw, line) => ({ line, url: raw.trim() }))
    .filter((l) => l.url);
  return lines.length > max ? null : lines;
}

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'accepted';
  } catch (err) {
    if (isApiError(err)) return err.code;
    throw err;
  }
};

describe('batch URL lists on hostile files', () => {
  it('scans lines as splitting the whole file would, however the text is cut into pieces, and stops past the cap', () => {
    const piece = fc.constantFrom('\n', '\r', '\r\n', ' ', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff', '\v', 'a', 'é', '图', 'http://x/', '😀');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 0, max: 12 }), (pieces, cuts, max) => {
        const text = pieces.join('');
        const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const scanner = new LineScanner(max);
        [0, ...at].forEach((from, i) => scanner.push(text.slice(from, at[i] ?? text.length)));
        scanner.end();
        expect(scanner.full ? null : scanner.lines).toEqual(splitWhole(text, max));
      }),
      { numRuns: 2000 },
    );
  });

  it('scans UTF-8 bytes, whole or streamed in chunks (a byte-order mark dropped, characters cut between chunks), as the decoded text', async () => {
    const line = fc.oneof(fc.webUrl(), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('', ' ', '\u00a0x'));
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(line, eol), { maxLength: 50 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 5 }), async (lines, bom, cuts) => {
        const text = lines.map(([l, e]) => l + e).join('');
        const bytes = Buffer.from((bom ? '\uFEFF' : '') + text, 'utf8');
        expect(await scanBatchLines(bytes, 20)).toEqual(splitWhole(text, 20));
        // The same bytes streamed in chunks cut anywhere (inside a character too), as a temp file is read.
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        async function* chunks() {
          for (const [i, from] of [0, ...at].entries()) yield bytes.subarray(from, at[i] ?? bytes.length);
        }
        expect(await scanBatchLines(chunks(), 20)).toEqual(splitWhole(text, 20));
      }),
      { numRuns: 100 },
    );
  });

  it('answer lines or a batch error, never anything else', async () => {
    const line = fc.oneof(fc.webUrl(), fc.string({ maxLength: 600 }), fc.constantFrom('', ' ', '\r', 'http://', `http://a/${'x'.repeat(600)}`));
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(line, eol), { maxLength: 300 }), fc.boolean(), async (lines, bom) => {
        const text = (bom ? '\uFEFF' : '') + lines.map(([l, e]) => l + e).join('');
        const code = await within(codeOf(parseBatchUrls(Buffer.from(text, 'utf8'), 200)), 5_000, 'parseBatchUrls');
        expect(['accepted', 400004, 400005, 400006]).toContain(code);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses 20 M one-character lines with 400006 (stopping at the cap), 20 M empty lines with 400004 giving the event loop back meanwhile, invalid bytes with 400003', async () => {
    expect(await codeOf(parseBatchUrls(Buffer.alloc(40 * 1024 * 1024, 'a\n'), 100_000))).toBe(400006);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      expect(await codeOf(parseBatchUrls(Buffer.alloc(40 * 1024 * 1024, '\n'), 100_000))).toBe(400004);
    } finally {
      clearInterval(ticker);
    }
    // One piece of 256 KB per turn (160 turns); read whole in one turn, the timer would not have fired at all.
    expect(turns).toBeGreaterThan(50);
    expect(await codeOf(parseBatchUrls(Buffer.alloc(1024, 0xff), 100_000))).toBe(400003);
  });
});

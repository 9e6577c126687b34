/** The record-browsing parameters: bounded, and refused with 400/5001 whatever the input. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@iris/shared';
import { MAX_OFFSET, MAX_PAGE_COUNT, parseBrowseQuery, parseRecordId, parseThumbnailSize, THUMBNAIL_SIZES } from './set-records.params.js';

function outcome(fn: () => unknown): 'ok' | 'refused' {
  try {
    fn();
    return 'ok';
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).code).toBe(5001);
    return 'refused';
  }
}

describe('record browsing parameters', () => {
  it('accepts only bounded pages: count 1–100, offset at most 100,000', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 30 })), fc.option(fc.string({ maxLength: 30 })), fc.option(fc.string({ maxLength: 12 })), (page, count, status) => {
        const search = new URLSearchParams();
        if (page !== null) search.set('page', page);
        if (count !== null) search.set('count', count);
        if (status !== null) search.set('status', status);
        if (outcome(() => parseBrowseQuery(search)) === 'ok') {
          const q = parseBrowseQuery(search);
          expect(q.count).toBeGreaterThanOrEqual(1);
          expect(q.count).toBeLessThanOrEqual(MAX_PAGE_COUNT);
          expect(q.page * q.count).toBeLessThanOrEqual(MAX_OFFSET);
          expect([null, 'pending', 'downloaded', 'failed']).toContain(q.status);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads integers exactly and refuses look-alikes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 100 }), (page, count) => {
        const q = () => parseBrowseQuery(new URLSearchParams({ page: String(page), count: String(count) }));
        if (page * count <= MAX_OFFSET) expect(q()).toEqual({ page, count, status: null });
        else expect(outcome(q)).toBe('refused');
      }),
    );
    for (const bad of ['1e2', '0x10', ' 5', '5 ', '+5', '-1', '1.5', '', '０', '99999999999999999999']) {
      expect(outcome(() => parseBrowseQuery(new URLSearchParams({ count: bad }))), bad).toBe('refused');
    }
    expect(parseBrowseQuery(new URLSearchParams())).toEqual({ page: 0, count: 24, status: null });
  });

  it('takes only the listed thumbnail sizes and plain positive record ids', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (raw) => {
        if (outcome(() => parseThumbnailSize(new URLSearchParams({ size: raw }))) === 'ok') expect(THUMBNAIL_SIZES.map(String)).toContain(raw);
        if (outcome(() => parseRecordId(raw)) === 'ok') expect(raw).toMatch(/^[1-9]\d{0,17}$/);
      }),
      { numRuns: 2000 },
    );
    expect(parseThumbnailSize(new URLSearchParams())).toBe(256);
    for (const bad of ['0', '01', '-3', '1'.repeat(19), '1 OR 1=1', '../1', '']) expect(outcome(() => parseRecordId(bad)), bad).toBe('refused');
  });
});

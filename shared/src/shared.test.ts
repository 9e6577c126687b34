import { describe, expect, it } from 'vitest';
import {
  ApiError, apiErrorBody, charLength, ERROR, errorFamilyForPath, formatTime, languageFromHeader, parseTime, signInternal,
  splitTags, truncateChars, verifyInternal,
} from './index.js';

describe('time format', () => {
  it('formats UTC at second precision', () => {
    expect(formatTime(new Date(Date.UTC(2017, 0, 2, 3, 4, 5, 678)))).toBe('2017-01-02T03:04:05Z');
  });
  it('parses only the exact format', () => {
    expect(parseTime('2017-01-02T03:04:05Z')?.getTime()).toBe(Date.UTC(2017, 0, 2, 3, 4, 5));
    expect(parseTime('2017-01-02 03:04:05')).toBeNull();
    expect(parseTime('2017-02-30T00:00:00Z')).toBeNull();
  });
});

describe('unicode text rules', () => {
  it('counts and truncates code points, not UTF-16 units', () => {
    const name = '😀'.repeat(20);
    expect(charLength(name)).toBe(20);
    expect(truncateChars(name, 16)).toBe('😀'.repeat(16));
    expect(truncateChars('短名', 16)).toBe('短名');
  });
  it('splits tags', () => {
    expect(splitTags('男|鞋||男 ')).toEqual(['男', '鞋']);
  });
});

describe('error shapes', () => {
  it('chooses the family by path', () => {
    expect(errorFamilyForPath('/image_sets/_0000014/abc')).toBe('resource');
    expect(errorFamilyForPath('/detect/_0000049')).toBe('analysis');
    expect(errorFamilyForPath('/image_analysis_everything/_0000072')).toBe('analysis');
    expect(errorFamilyForPath('/custom_training/abcdefgh12345678')).toBe('analysis');
    expect(errorFamilyForPath('/custom_training/_0000194/services')).toBe('resource');
    expect(errorFamilyForPath('/batch/_1000001/task/prepare')).toBe('batch');
  });
  it('builds each shape', () => {
    const err = new ApiError('setNotFound', 'image set does not exist');
    expect(apiErrorBody('/image_sets/_0000014/x', err, 'r1')).toEqual({ error_code: 2001, message: 'image set does not exist', request_id: 'r1' });
    const detect = apiErrorBody('/detect/_0000049', new ApiError('detectNoImage', 'no image'), 'r2') as { data: Record<string, unknown>; status: number };
    expect(detect.status).toBe(400);
    expect(detect.data).toMatchObject({ is_err: 1, error_code: 400003, request_id: 'r2' });
    const batch = apiErrorBody('/batch/_1000001/task/apply', new ApiError('batchTaskUnknown', 'no task'), 'r3');
    expect(batch).toEqual({ data: { error_code: 400011, message: 'no task' }, is_error: 1, request_id: 'r3' });
  });
  it('gives colour and fashion errors an HTTP status but no error_code', () => {
    for (const path of ['/color/_0000072', '/image_analysis_everything/_0000072?x=1', '/dressing/_0000111']) {
      for (const key of ['analysisBadRequest', 'analysisImageFailed', 'serviceNotGranted', 'classifyServiceUnknown', 'accessKeyMissing', 'payloadTooLarge', 'rateLimited', 'busy'] as const) {
        const body = apiErrorBody(path, new ApiError(key, 'bad'), 'r4', 0.5) as { data: Record<string, unknown>; status: number };
        expect(body).toEqual({ data: { is_err: 1, message: 'bad', msg: 'bad', request_id: 'r4', time: 0.5 }, status: ERROR[key][0] });
      }
    }
    // Whatever the status on those paths (their family has no error_code); the same codes elsewhere keep theirs.
    expect((apiErrorBody('/detect/_0000049', new ApiError('serviceNotGranted', 'no'), 'r5') as { data: object }).data).toMatchObject({ error_code: 2005 });
    expect((apiErrorBody('/custom_training/abcdefgh12345678', new ApiError('analysisBadRequest', 'topk'), 'r6') as { data: object }).data).toMatchObject({ error_code: 400 });
  });
});

describe('language', () => {
  it('selects Chinese for any zh value', () => {
    for (const v of ['zh-cn', 'zh-Hans-CN', 'ZH']) expect(languageFromHeader(v)).toBe('zh');
    for (const v of ['en-us', '', undefined, 'fr']) expect(languageFromHeader(v)).toBe('en');
  });
});

describe('internal signature', () => {
  const input = { method: 'POST', pathWithQuery: '/image_sets/_0000014', accountId: 7, context: { requestId: 'r', lang: 'en' as const } };
  it('round-trips and refuses tampering', async () => {
    const headers = await signInternal('s3cret', input);
    const header = (h: Record<string, string>) => (name: string) => h[name];
    const ok = await verifyInternal('s3cret', { method: 'POST', pathWithQuery: '/image_sets/_0000014', header: header(headers) });
    expect(ok).toEqual({ ok: true, accountId: 7, context: { requestId: 'r', lang: 'en', nonce: expect.stringMatching(/^[0-9a-f]{32}$/) } });
    const wrongPath = await verifyInternal('s3cret', { method: 'POST', pathWithQuery: '/image_sets/_0000014/x', header: header(headers) });
    expect(wrongPath.ok).toBe(false);
    const wrongKey = await verifyInternal('other', { method: 'POST', pathWithQuery: '/image_sets/_0000014', header: header(headers) });
    expect(wrongKey.ok).toBe(false);
    const forged = await verifyInternal('s3cret', { method: 'POST', pathWithQuery: '/image_sets/_0000014', header: header({ ...headers, 'x-iris-account': '8' }) });
    expect(forged.ok).toBe(false);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { AnalysisError, BatchError, ResourceError } from './error-shapes.js';
import { errorBody } from '../errors.js';
import { ImageSetPost, operationById, parseInput, ProductSearchQuery, SearchQuery } from './index.js';

const codeOf = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
  return undefined;
};

describe('request schemas', () => {
  it('accept numbers as numbers or as text, lists as arrays or text', () => {
    expect(SearchQuery.parse({ url: 'http://x/a.jpg', count: '20', loc: '0-0-1-1' }).count).toBe('20');
    expect(SearchQuery.parse({ url: 'http://x/a.jpg', count: 20, loc: [0, 0, 1, '1'], tags: ['a', 'b'] }).count).toBe(20);
    expect(ProductSearchQuery.parse({ url: 'u', min_price: '1.5', max_price: 9, page: '0' }).min_price).toBe('1.5');
    expect(() => SearchQuery.parse({ count: 'twenty' })).toThrow();
  });

  it('tell the bodies of the image-set POST apart, aliases included', () => {
    expect(ImageSetPost.safeParse({ image_url: 'http://x/a.jpg', meta: 'm' }).success).toBe(true);
    expect(ImageSetPost.safeParse({ url: 'http://x/a.jpg' }).success).toBe(true);
    expect(ImageSetPost.safeParse({ urls_to_add: 'http://x/a.jpg,m,t' }).success).toBe(true);
    expect(ImageSetPost.safeParse({ name: 'renamed' }).success).toBe(true);
  });

  it('refuse with the operation’s own code for the field, else the family code', () => {
    expect(codeOf(() => parseInput(operationById('createImageSet').body!.schema, operationById('createImageSet'), {}))).toBe(5004);
    expect(codeOf(() => parseInput(operationById('createProductSet').body!.schema, operationById('createProductSet'), { description: 'd' }))).toBe(1007);
    expect(codeOf(() => parseInput(operationById('prepareBatchTask').body!.schema, operationById('prepareBatchTask'), { urls: 'a' }))).toBe(400001);
    expect(codeOf(() => parseInput(operationById('prepareBatchTask').body!.schema, operationById('prepareBatchTask'), { service_id: '_0000072' }))).toBe(400002);
    expect(codeOf(() => parseInput(operationById('search').body!.schema, operationById('search'), { count: 'many' }))).toBe(5001);
    expect(codeOf(() => parseInput(operationById('color').body!.schema, operationById('color'), { granularity: 'most' }))).toBe(400);
  });

  it('never throw anything but an ApiError, whatever the input (hostile)', () => {
    const operations = ['createImageSet', 'postImageSet', 'search', 'productSearch', 'prepareBatchTask', 'color', 'clearTrainingSet'].map(operationById);
    fc.assert(
      fc.property(fc.constantFrom(...operations), fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 5 }))), (operation, values) => {
        try {
          parseInput(operation.body!.schema, operation, values);
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          expect((err as ApiError).status).toBeGreaterThanOrEqual(400);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('error shapes', () => {
  it('describe what errorBody builds for each family', () => {
    const input = { status: 404, code: 2001, message: 'no such set', requestId: 'r1' };
    expect(ResourceError.strict().parse(errorBody('resource', input))).toEqual(errorBody('resource', input));
    expect(AnalysisError.parse(errorBody('analysis', { ...input, elapsedSeconds: 0.5 }))).toEqual(errorBody('analysis', { ...input, elapsedSeconds: 0.5 }));
    const batch = errorBody('batch', { ...input, code: 400005, extra: { urls_duplicated: { 'http://a': [0, 1] }, urls_verify_failed: { '2': 'nope' } } });
    expect(BatchError.parse(batch)).toEqual(batch);
    expect(ResourceError.safeParse(errorBody('batch', input)).success).toBe(false);
  });
});

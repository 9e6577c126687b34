/** Search queries: images (`/search/{service_id}`) and products (`/product_search/{service_id}`). */
import { z } from 'zod';
import { intText, numberText, op, pathParams, requestId, secondsString, upload } from './common.js';

const loc = z.union([z.string().describe('x-y-w-h ratios, e.g. 0-0-1-1'), z.array(numberText).length(4)]);
const tags = z.union([z.string().describe('|-joined tags (AND) or JSON {"and"|"or": [...]}'), z.array(z.string())]);

export const SearchQuery = z
  .object({
    url: z.string().optional().describe('query image URL (or give the file search)'),
    search: upload.optional().describe('query image file (or give url)'),
    loc: loc.optional(),
    count: intText.optional().describe('maximum number of results, default 20'),
    tags: tags.optional(),
    rerank: z.union([z.string(), z.number().int()]).optional().describe('Iris: 0 skips geometric re-ranking for this query (default 1)'),
    regions: z
      .string()
      .optional()
      .describe('Iris: auto (default) searches the regions of the query when its whole-picture match is not decisive; off never; all always, answering one group of results per region'),
  })
  .passthrough();
export const ProductSearchQuery = SearchQuery.extend({
  keywords: z.string().optional().describe('space-joined words'),
  min_price: numberText.optional(),
  max_price: numberText.optional(),
  page: intText.optional(),
});
export type SearchQueryInput = z.output<typeof SearchQuery>;
export type ProductSearchQueryInput = z.output<typeof ProductSearchQuery>;

const envelope = {
  is_err: z.literal(0),
  request_id: requestId,
  loc: z.array(z.number()).length(4),
  ds: z.string().describe('id of the data set searched'),
  detect_time: secondsString,
  detection_score: z.number().nullable(),
  download_time: secondsString,
  preprocess_time: secondsString,
  searchtime: secondsString,
  time: secondsString,
  ver: z.string(),
};
const normalisedBox = z.array(z.number()).length(4).describe('[x, y, w, h], normalised to the picture (0..1)');
/** Iris extension on a result whose match was verified geometrically (docs/search.md, "Robust matching"). */
export const MatchedRegion = z
  .object({
    query: normalisedBox.describe('where the result picture appears in the query'),
    result: normalisedBox.describe('the part of the result picture the query shows'),
    inliers: z.number().int().describe('keypoint matches consistent with one homography'),
  })
  .describe('Iris: present when geometric re-ranking verified that the query shows this picture');
const score = z.number().describe('(1 + cosine) / 2, at least 0.9 when verified; 0.8 or more: the same picture with 97 % precision');
export const SearchHit = z.object({ metadata: z.string(), score, url: z.string(), tags: z.string().describe('Iris: the record tags'), matched_region: MatchedRegion.optional() });
export const ProductHit = z.object({
  product_id: z.string(),
  price: z.union([z.string(), z.number()]).nullable(),
  keywords: z.string().nullable(),
  url: z.string(),
  metadata: z.string(),
  score,
  tags: z.string(),
  matched_region: MatchedRegion.optional(),
});
/** Iris extension (`regions=all`): the results of one region of the query, the way grouped product search answers. */
const regionGroup = <T extends z.ZodTypeAny>(hit: T) =>
  z.object({
    box: normalisedBox.describe('the region of the query searched'),
    score: z.number().describe("the score of the region's best result (0 without results)"),
    results: z.array(hit),
  });
const regions = <T extends z.ZodTypeAny>(hit: T) => z.array(regionGroup(hit)).optional().describe('Iris: with regions=all, one group per region of the query');
export const SearchResponse = z.object({ ...envelope, results: z.array(SearchHit), regions: regions(SearchHit) });
export const ProductSearchResponse = z.object({ ...envelope, results: z.array(ProductHit), page: z.number().int(), count: z.number().int(), regions: regions(ProductHit) });

const byService = pathParams('service_id');
export const searchOperations = [
  op({
    id: 'search', method: 'post', path: '/search/{service_id}', servedBy: 'backend', tag: 'Search', summary: 'Search an image set with a query image', errors: 'resource',
    errorCodes: ['serviceNotFound', 'invalidData', 'imageDownloadFailed'], params: byService, body: { schema: SearchQuery, forms: ['form', 'multipart', 'json'], required: true }, response: SearchResponse,
  }),
  op({
    id: 'productSearch', method: 'post', path: '/product_search/{service_id}', servedBy: 'backend', tag: 'Search', summary: 'Search a product set with a query image', extension: 'clients', errors: 'resource',
    errorCodes: ['serviceNotFound', 'invalidData', 'imageDownloadFailed'], params: byService, body: { schema: ProductSearchQuery, forms: ['form', 'multipart', 'json'], required: true }, response: ProductSearchResponse,
  }),
];

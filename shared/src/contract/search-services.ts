/** Search services: create on an image set or a product set; list, get, rename, delete (the clients' paths). */
import { z } from 'zod';
import { SCENARIOS } from '../catalogue.js';
import { ANY_FORM, listOf, op, pathParams, requestId, timestamp } from './common.js';

export const SearchService = z.object({
  id: z.string(),
  name: z.string(),
  scenario: z.string(),
  image_set_id: z.string().describe('the data set indexed'),
  product_set_id: z.string().optional().describe('Iris: the product set, for product-set services'),
  created_at: timestamp,
  creator_id: z.number().int(),
  indexed_ratio: z.number().describe('indexed images / downloaded images'),
  n_indexed: z.number().int(),
  n_first_pass_only: z.number().int().describe('Iris: indexed images still waiting for their second pass (thumbnail views and keypoints); searchable already'),
  last_indexed_time: timestamp.nullable(),
  last_updated_at: timestamp.nullable(),
  status: z.literal('running'),
  status_duration: z.number().int(),
  type: z.number().int().optional().describe('present in the product-set variant only'),
});
export const SearchServiceResponse = SearchService.extend({ request_id: requestId });

export const CreateSearchService = z.object({ name: z.string(), scenario: z.string().describe(`a defined scenario: ${SCENARIOS.join(', ')}`) }).passthrough();
export const RenameService = z.object({ name: z.string() }).passthrough();

export type CreateSearchServiceInput = z.output<typeof CreateSearchService>;
export type RenameServiceInput = z.output<typeof RenameService>;

const tag = 'Search services';
const byService = pathParams('service_id');

/** List / get / rename / delete under one base (two bases exist: every service, product-set services). */
function manage<P extends string>(base: string, label: string, idPrefix: P) {
  const common = { servedBy: 'backend' as const, tag, extension: 'clients' as const, errors: 'resource' as const };
  return [
    op({ ...common, id: `list${idPrefix}` as const, method: 'get', path: base, summary: `List ${label}`, response: listOf(SearchService) }),
    op({ ...common, id: `get${idPrefix}` as const, method: 'get', path: `${base}/{service_id}`, summary: `Get one of the ${label}`, errorCodes: ['serviceNotFound'], params: byService, response: SearchServiceResponse }),
    op({ ...common, id: `rename${idPrefix}` as const, method: 'put', path: `${base}/{service_id}`, summary: `Rename one of the ${label}`, errorCodes: ['serviceNotFound'], params: byService, body: { schema: RenameService, forms: ANY_FORM, required: true }, response: SearchServiceResponse }),
    op({ ...common, id: `patch${idPrefix}` as const, method: 'patch', path: `${base}/{service_id}`, summary: `Rename one of the ${label}`, errorCodes: ['serviceNotFound'], params: byService, body: { schema: RenameService, forms: ANY_FORM, required: true }, response: SearchServiceResponse }),
    op({ ...common, id: `delete${idPrefix}` as const, method: 'delete', path: `${base}/{service_id}`, summary: `Delete one of the ${label}`, errorCodes: ['serviceNotFound'], params: byService, response: null, status: 204 }),
  ];
}

export const searchServiceOperations = [
  op({
    id: 'createImageSetService', method: 'post', path: '/image_sets/_0000014/{image_set_id}/services', servedBy: 'backend', tag, summary: 'Create a search service on an image set', errors: 'resource',
    errorCodes: ['scenarioUnknown', 'imageSetForbidden', 'setNotFound', 'invalidData', 'setServiceQuota'], params: pathParams('image_set_id'), body: { schema: CreateSearchService, forms: ANY_FORM, required: true }, fieldErrors: { scenario: 'scenarioUnknown' }, response: SearchServiceResponse,
  }),
  op({
    id: 'createProductSetService', method: 'post', path: '/product_sets/_0000178/{product_set_id}/services', servedBy: 'backend', tag, summary: 'Create a search service on a product set', errors: 'resource',
    errorCodes: ['scenarioUnknown', 'productSetForbidden', 'productSetNotFound', 'invalidData', 'setServiceQuota'], params: pathParams('product_set_id'), body: { schema: CreateSearchService, forms: ANY_FORM, required: true }, fieldErrors: { scenario: 'scenarioUnknown' }, response: SearchServiceResponse,
  }),
  ...manage('/customer_services/_0000172', 'search services', 'SearchServices'),
  ...manage('/product_sets/_0000178/services', 'product-set search services', 'ProductSetServices'),
];

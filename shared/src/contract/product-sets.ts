/** Product sets (`/product_sets/_0000178`) and their products. */
import { z } from 'zod';
import { ANY_FORM, intText, listOf, op, pathParams, requestId, timestamp, upload } from './common.js';
import { SetStatus } from './image-sets.js';

const BASE = '/product_sets/_0000178';
const byId = pathParams('product_set_id');

export const ProductSet = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  created_at: timestamp,
  modified_at: timestamp,
  creator_id: z.number().int(),
  image_set_id: z.string().describe('the image set bound to the product set'),
  status: SetStatus,
});
export const ProductSetResponse = ProductSet.extend({ request_id: requestId });

export const CreateProductSet = z.object({ name: z.string(), description: z.string().optional().describe('required by the specification; empty when left out') }).passthrough();
export const ModifyProductSet = z.object({ name: z.string().optional(), description: z.string().optional() }).passthrough();

export const AddProduct = z
  .object({
    product_id: z.string(),
    image_url: z.string().optional().describe('required unless url is given; at most 512 characters'),
    url: z.string().optional().describe('alias of image_url'),
    price: z.union([z.number(), z.string()]).optional().describe('a number, or text'),
    keywords: z.string().optional(),
    meta: z.string().optional(),
    tags: z.string().optional(),
  })
  .passthrough();
export const AddProducts = z.object({ products_to_add: upload.describe('JSON lines {product_id, image_url|url, price, keywords, meta, tags}, under 50 MB') }).passthrough();
export const DeleteProductsFile = z.object({ products_to_delete: upload.describe('JSON lines with product_id, under 50 MB') }).passthrough();
export const ProductsPost = z.union([AddProducts, DeleteProductsFile, AddProduct]);
export const ProductIds = z.object({ ids: z.union([z.array(z.string()), z.string().describe('comma-separated ids')]).optional() }).passthrough();

export type CreateProductSetInput = z.output<typeof CreateProductSet>;
export type ModifyProductSetInput = z.output<typeof ModifyProductSet>;
export type AddProductInput = z.output<typeof AddProduct>;
export type AddProductsInput = z.output<typeof AddProducts>;
export type DeleteProductsFileInput = z.output<typeof DeleteProductsFile>;
export type ProductsPostInput = z.output<typeof ProductsPost>;

/** Which operation a products POST is, by the field given (neither file: one product). */
export const isAddProducts = (input: ProductsPostInput): input is AddProductsInput => input.products_to_add !== undefined;
export const isDeleteProductsFile = (input: ProductsPostInput): input is DeleteProductsFileInput => input.products_to_delete !== undefined;

export const OkResponse = z.object({ ok: z.boolean(), request_id: requestId });

export const ProductImage = z.object({ url: z.string(), status: z.string() }).passthrough();
export const Product = z.object({
  product_id: z.string(),
  url: z.string(),
  price: z.union([z.string(), z.number()]).nullable(),
  keywords: z.string().nullable(),
  meta: z.string().nullable(),
  tags: z.string(),
  images: z.array(ProductImage),
  created_at: timestamp,
  modified_at: timestamp,
});
export const ProductList = z.object({
  request_id: requestId,
  page: z.number().int().optional(),
  count: z.number().int().optional(),
  total: z.number().int().optional().describe('products in the set (paged listing only)'),
  results: z.array(Product),
});

const tag = 'Product sets';
export const productSetOperations = [
  op({
    id: 'createProductSet', method: 'post', path: BASE, servedBy: 'backend', tag, summary: 'Create a product set', errors: 'resource',
    errorCodes: ['productSetNameMissing'], body: { schema: CreateProductSet, forms: ANY_FORM, required: true }, fieldErrors: { name: 'productSetNameMissing' }, response: ProductSetResponse,
  }),
  op({ id: 'listProductSets', method: 'get', path: BASE, servedBy: 'backend', tag, summary: 'List product sets', errors: 'resource', response: listOf(ProductSet) }),
  op({ id: 'deleteAllProductSets', method: 'delete', path: BASE, servedBy: 'backend', tag, summary: 'Delete every product set of the account', extension: 'clients', errors: 'resource', errorCodes: ['inUse'], response: null, status: 204 }),
  op({ id: 'getProductSet', method: 'get', path: `${BASE}/{product_set_id}`, servedBy: 'backend', tag, summary: 'Get a product set', errors: 'resource', errorCodes: ['productSetForbidden', 'productSetNotFound'], params: byId, response: ProductSetResponse }),
  op({
    id: 'modifyProductSet', method: 'post', path: `${BASE}/{product_set_id}`, servedBy: 'backend', tag, summary: 'Modify a product set', errors: 'resource',
    errorCodes: ['productSetNameMissing', 'productSetForbidden', 'productSetNotFound'], params: byId, body: { schema: ModifyProductSet, forms: ANY_FORM }, fieldErrors: { name: 'productSetNameMissing' }, response: ProductSetResponse,
  }),
  op({
    id: 'modifyProductSetPut', method: 'put', path: `${BASE}/{product_set_id}`, servedBy: 'backend', tag, summary: 'Modify a product set (method used by the released clients)', extension: 'clients', errors: 'resource',
    errorCodes: ['productSetNameMissing', 'productSetForbidden', 'productSetNotFound'], params: byId, body: { schema: ModifyProductSet, forms: ANY_FORM }, fieldErrors: { name: 'productSetNameMissing' }, response: ProductSetResponse,
  }),
  op({
    id: 'deleteProductSet', method: 'delete', path: `${BASE}/{product_set_id}`, servedBy: 'backend', tag, summary: 'Delete a product set', errors: 'resource',
    errorCodes: ['productSetForbidden', 'productSetNotFound', 'productSetDeleteFailed', 'inUse'], params: byId, response: null, status: 204,
  }),
  op({
    id: 'postProducts', method: 'post', path: `${BASE}/{product_set_id}/products`, servedBy: 'backend', tag,
    summary: 'Add one product (JSON), add or update many (products_to_add), delete many (products_to_delete)', errors: 'resource',
    errorCodes: ['invalidData', 'productSetForbidden', 'productSetNotFound', 'setRecordQuota', 'accountRecordQuota', 'storedBytesQuota'], params: byId, body: { schema: ProductsPost, forms: ANY_FORM, required: true }, response: OkResponse,
  }),
  op({
    id: 'listProducts', method: 'get', path: `${BASE}/{product_set_id}/products`, servedBy: 'backend', tag, summary: 'List products (page, count) or get products by id (ids)', extension: 'clients', errors: 'resource',
    errorCodes: ['productSetForbidden', 'productSetNotFound'], params: byId,
    query: z.object({ page: intText.optional().describe('0-based'), count: intText.optional().describe('default 20'), ids: z.string().optional().describe('comma-separated product ids') }),
    body: { schema: ProductIds, forms: ['json'] }, response: ProductList,
  }),
  op({
    id: 'deleteProducts', method: 'delete', path: `${BASE}/{product_set_id}/products`, servedBy: 'backend', tag, summary: 'Delete products by id', errors: 'resource',
    errorCodes: ['invalidData', 'productSetForbidden', 'productSetNotFound'], params: byId, query: z.object({ ids: z.string().optional() }),
    body: { schema: ProductIds, forms: ANY_FORM }, response: null, status: 204,
  }),
];

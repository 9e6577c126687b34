/** Image sets (`/image_sets/_0000014`): the specification's operations plus the clients' aliases. */
import { z } from 'zod';
import { ANY_FORM, listOf, op, pathParams, requestId, timestamp, upload } from './common.js';

const BASE = '/image_sets/_0000014';
const byId = pathParams('image_set_id');

export const SetStatus = z.enum(['not-downloaded', 'downloading', 'downloaded']);

/** The image-set object; the training-set object has the same fields. */
export const DataSet = z.object({
  id: z.string(),
  name: z.string().describe('truncated to 16 characters'),
  description: z.string().describe('truncated to 128 characters'),
  created_at: timestamp,
  modified_at: timestamp,
  creator_id: z.number().int(),
  n_downloaded: z.number().int(),
  n_failed: z.number().int(),
  n_items: z.number().int(),
  status: SetStatus,
});
export const DataSetResponse = DataSet.extend({ request_id: requestId });
export const DataSetList = listOf(DataSet);

export const CreateImageSet = z.object({ name: z.string().describe('required; longer than 16 characters is truncated'), description: z.string().optional() }).passthrough();
export const ModifyImageSet = z.object({ name: z.string().optional(), description: z.string().optional() }).passthrough();

const record = {
  meta: z.string().optional().describe('at most 512 characters'),
  tags: z.string().optional().describe('tags joined with |'),
};
export const AddImage = z
  .object({ image_url: z.string().optional().describe('required (or url); at most 512 characters'), url: z.string().optional().describe('alias of image_url (older clients)'), ...record })
  .passthrough()
  .refine((v) => v.image_url !== undefined || v.url !== undefined, { message: 'image_url is required', path: ['image_url'] });
export const AddImages = z.object({ urls_to_add: upload.describe('CSV url,meta,tags (or a .tar.gz holding it), under 50 MB') }).passthrough();
export const DeleteImages = z.object({ urls_to_delete: upload.describe('CSV whose first column is the URL to delete, under 50 MB') }).passthrough();

/** The one POST on a set: told apart by the body (none = delete the set). */
export const ImageSetPost = z.union([AddImage, AddImages, DeleteImages, ModifyImageSet]);

export type CreateImageSetInput = z.output<typeof CreateImageSet>;
export type ModifyImageSetInput = z.output<typeof ModifyImageSet>;
export type AddImageInput = z.output<typeof AddImage>;
export type AddImagesInput = z.output<typeof AddImages>;
export type DeleteImagesInput = z.output<typeof DeleteImages>;
export type ImageSetPostInput = z.output<typeof ImageSetPost>;

/** Which operation a set's POST is, by the field given (the route's order: add many, delete many, add one, modify). */
export const isAddImages = (input: ImageSetPostInput): input is AddImagesInput => input.urls_to_add !== undefined;
export const isDeleteImages = (input: ImageSetPostInput): input is DeleteImagesInput => input.urls_to_delete !== undefined;
export const isAddImage = (input: ImageSetPostInput): input is AddImageInput => input.image_url !== undefined || input.url !== undefined;
export const isModifyImageSet = (input: ImageSetPostInput): input is ModifyImageSetInput => input.name !== undefined || input.description !== undefined;

export const imageSetOperations = [
  op({
    id: 'createImageSet', method: 'post', path: BASE, servedBy: 'backend', tag: 'Image sets', summary: 'Create an image set', errors: 'resource',
    errorCodes: ['setNameMissing', 'imageSetQuota'], body: { schema: CreateImageSet, forms: ANY_FORM, required: true },
    fieldErrors: { name: 'setNameMissing', description: 'setNameMissing' }, response: DataSetResponse,
  }),
  op({ id: 'listImageSets', method: 'get', path: '/get_image_sets/_0000014', servedBy: 'backend', tag: 'Image sets', summary: 'List image sets', errors: 'resource', response: DataSetList }),
  op({ id: 'listImageSetsAlias', method: 'get', path: BASE, servedBy: 'backend', tag: 'Image sets', summary: 'List image sets (path used by the released clients)', extension: 'clients', errors: 'resource', response: DataSetList }),
  op({
    id: 'getImageSet', method: 'get', path: `${BASE}/{image_set_id}`, servedBy: 'backend', tag: 'Image sets', summary: 'Get an image set', errors: 'resource',
    errorCodes: ['imageSetForbidden', 'setNotFound'], params: byId, response: DataSetResponse,
  }),
  op({
    id: 'modifyImageSet', method: 'put', path: `${BASE}/{image_set_id}`, servedBy: 'backend', tag: 'Image sets', summary: 'Modify an image set', errors: 'resource',
    errorCodes: ['setNameMissing', 'imageSetForbidden', 'setNotFound'], params: byId, body: { schema: ModifyImageSet, forms: ANY_FORM },
    fieldErrors: { name: 'setNameMissing', description: 'setNameMissing' }, response: DataSetResponse,
  }),
  op({
    id: 'deleteImageSet', method: 'delete', path: `${BASE}/{image_set_id}`, servedBy: 'backend', tag: 'Image sets', summary: 'Delete an image set', extension: 'clients', errors: 'resource',
    errorCodes: ['imageSetForbidden', 'inUse', 'setNotFound'], params: byId, response: null, status: 204,
  }),
  op({
    id: 'postImageSet', method: 'post', path: `${BASE}/{image_set_id}`, servedBy: 'backend', tag: 'Image sets',
    summary: 'Add one image (image_url), add many (urls_to_add), delete many (urls_to_delete), or delete the set (no body, 204)', errors: 'resource',
    errorCodes: ['invalidData', 'imageSetForbidden', 'setNotFound', 'imageDownloadFailed', 'inUse', 'setRecordQuota', 'accountRecordQuota', 'storedBytesQuota'], params: byId,
    body: { schema: ImageSetPost, forms: ANY_FORM }, response: DataSetResponse, alsoNoContent: true,
  }),
];

/**
 * Iris extension: pictures from files. A local file is uploaded into an image set or a product set, stored in
 * the blob store and recorded under a stable URL under the region's base (`…/iris/files/{sha256}/{name}`), so
 * the record is a URL record for every other call (search results, deletes by URL, listing). The same bytes
 * under the same name give the same URL: uploading them again changes nothing but the record's attributes.
 */
import { z } from 'zod';
import { op, requestId, upload } from './common.js';
import { RecordStatus } from './set-records.js';

/** A file's name as the record's URL carries it: a relative path (`holiday/beach.jpg`), folders joined with `/`. */
export const FILE_NAME_CHARS = 200;
export const SHA256_HEX = /^[0-9a-f]{64}$/;
/** Files one lookup may ask about. */
export const LOOKUP_FILES = 100;

export const UploadSetKind = z.enum(['image_sets', 'product_sets']);
const params = z.object({ kind: UploadSetKind, id: z.string().min(1).max(128) });

export const UploadFile = z
  .object({
    file: upload.describe('the picture (JPEG, PNG, WebP, GIF, BMP, TIFF), under the download size cap'),
    name: z.string().optional().describe(`the name the URL carries (default: the part's file name); at most ${FILE_NAME_CHARS} characters`),
    meta: z.string().optional().describe('at most 512 characters'),
    tags: z.string().optional().describe('tags joined with |'),
    product_id: z.string().optional().describe('required for a product set'),
    price: z.string().optional().describe('product sets'),
    keywords: z.string().optional().describe('product sets'),
  })
  .passthrough();
export type UploadFileInput = z.output<typeof UploadFile>;

export const UploadedFile = z.object({
  request_id: requestId,
  url: z.string().describe('the stable URL the record keys on'),
  stored: z.boolean().describe('false when the set already held this picture under this name (only its attributes were updated)'),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
});

/** A JSON body's array reaches the backend's body reader as its JSON text: read it back. */
const jsonText = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

export const LookupFiles = z
  .object({
    files: z.preprocess(
      jsonText,
      z.array(z.object({ name: z.string().min(1).max(FILE_NAME_CHARS * 4), sha256: z.string().regex(SHA256_HEX, 'must be 64 lower-case hex digits') }))
        .min(1)
        .max(LOOKUP_FILES),
    ),
  })
  .passthrough();
export type LookupFilesInput = z.output<typeof LookupFiles>;

export const FileLookup = z.object({
  request_id: requestId,
  results: z.array(z.object({ name: z.string(), sha256: z.string(), url: z.string(), status: RecordStatus.nullable().describe('null: not in the set') })),
});

const tag = 'Iris extensions';
export const fileUploadOperations = [
  op({
    id: 'uploadSetFile', method: 'post', path: '/iris/{kind}/{id}/files', route: '/iris/:kind/:id/files', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: 'Add a picture from a file to an image set or a product set (multipart, part `file`)',
    errorCodes: ['invalidData', 'payloadTooLarge', 'setNotFound', 'productSetNotFound', 'imageSetForbidden', 'productSetForbidden', 'storedBytesQuota', 'setRecordQuota', 'accountRecordQuota'],
    params, body: { schema: UploadFile, forms: ['multipart'], required: true }, response: UploadedFile,
  }),
  op({
    id: 'lookupSetFiles', method: 'post', path: '/iris/{kind}/{id}/files/lookup', route: '/iris/:kind/:id/files/lookup', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: 'Which files (name and SHA-256) a set already holds, and their URLs (a resumable upload skips them)',
    errorCodes: ['invalidData', 'setNotFound', 'productSetNotFound', 'imageSetForbidden', 'productSetForbidden'],
    params, body: { schema: LookupFiles, forms: ['json'], required: true }, response: FileLookup,
  }),
];

/**
 * The query image of an analysis, search or inference call: exactly one of a URL field (`url`, or
 * `image_url`) or an uploaded file (`search`, or `image`). Downloads go through the one SSRF-safe fetcher.
 * Failures carry a kind; each endpoint family maps kinds to its own error codes.
 */
import type { FastifyInstance } from 'fastify';
import type { FetchSlots } from './fetch-slots.js';
import { isFilePart } from '@iris/shared';
import { readUpload } from './request-body.js';
import { fetchImage, ImageFetchError } from '../images/image-fetcher.js';

export type QueryImageProblem = 'missing' | 'both' | 'download' | 'too-large';

export class QueryImageError extends Error {
  constructor(
    readonly problem: QueryImageProblem,
    message: string,
  ) {
    super(message);
    this.name = 'QueryImageError';
  }
}

export interface QueryImage {
  bytes: Uint8Array;
  /** Milliseconds spent downloading (0 for uploads). */
  downloadMs: number;
  source: 'url' | 'upload';
}

const URL_FIELDS = ['url', 'image_url'];
const FILE_FIELDS = ['search', 'image'];
const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** The request's input as the contract parsed it (`ImageInput`, `SearchQuery`, `ClassifierQuery`): text fields and file parts. */
export type QueryImageInput = Readonly<Record<string, unknown>>;


declare module 'fastify' {
  interface FastifyInstance {
    fetchSlots: FetchSlots;
  }
}

export async function acquireQueryImage(app: FastifyInstance, input: QueryImageInput, accountId: number): Promise<QueryImage> {
  // Only a file part is an upload (a text field named `search` is not an image).
  const upload = FILE_FIELDS.map((f) => input[f]).find(isFilePart);
  const url = URL_FIELDS.map((f) => input[f]).find((v): v is string => typeof v === 'string' && v.trim() !== '')?.trim();
  if (upload && url) throw new QueryImageError('both', 'give either url or an uploaded search image, not both');
  if (upload) {
    if (upload.size === 0) throw new QueryImageError('missing', 'the uploaded image is empty');
    if (upload.size > MAX_UPLOAD_BYTES) throw new QueryImageError('too-large', 'the uploaded image is larger than 20 MB');
    const bytes = await readUpload(upload);
    return { bytes: new Uint8Array(bytes), downloadMs: 0, source: 'upload' };
  }
  if (!url) throw new QueryImageError('missing', 'no query image: give url or upload search');
  const release = app.fetchSlots.take(accountId);
  const started = performance.now();
  try {
    const fetched = await fetchImage(url, app.config.images.fetch);
    return { bytes: fetched.bytes, downloadMs: performance.now() - started, source: 'url' };
  } catch (err) {
    if (err instanceof ImageFetchError) throw new QueryImageError('download', `image cannot be downloaded: ${err.message}`);
    throw err;
  } finally {
    release();
  }
}

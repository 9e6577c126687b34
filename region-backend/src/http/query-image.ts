/**
 * The query image of an analysis, search or inference call: exactly one of a URL field (`url`, or
 * `image_url`) or an uploaded file (`search`, or `image`). Downloads go through the one SSRF-safe fetcher.
 * Failures carry a kind; each endpoint family maps kinds to its own error codes.
 */
import type { FastifyInstance } from 'fastify';
import { fetchImage, ImageFetchError } from '../images/image-fetcher.js';
import type { RequestBody } from './request-body.js';

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

export async function acquireQueryImage(app: FastifyInstance, body: RequestBody): Promise<QueryImage> {
  const upload = FILE_FIELDS.map((f) => body.file(f)).find(Boolean);
  const url = URL_FIELDS.map((f) => body.fields[f]?.trim()).find((v) => v);
  if (upload && url) throw new QueryImageError('both', 'give either url or an uploaded search image, not both');
  if (upload) {
    if (upload.size === 0) throw new QueryImageError('missing', 'the uploaded image is empty');
    if (upload.size > MAX_UPLOAD_BYTES) throw new QueryImageError('too-large', 'the uploaded image is larger than 20 MB');
    const bytes = await body.bytes(upload.field);
    return { bytes: new Uint8Array(bytes!), downloadMs: 0, source: 'upload' };
  }
  if (!url) throw new QueryImageError('missing', 'no query image: give url or upload search');
  const started = performance.now();
  try {
    const fetched = await fetchImage(url, app.config.images.fetch);
    return { bytes: fetched.bytes, downloadMs: performance.now() - started, source: 'url' };
  } catch (err) {
    if (err instanceof ImageFetchError) throw new QueryImageError('download', `image cannot be downloaded: ${err.message}`);
    throw err;
  }
}

/**
 * Building blocks of the contract: how an operation is described, and the value types the specification
 * and the released clients use (times as text, numbers that arrive as strings, request ids).
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { ErrorFamily, ErrorKey } from '../errors.js';

// `.openapi()` metadata (file parts as binary strings) on the contract's schemas.
extendZodWithOpenApi(z);

export const requestId = z.string().describe('unique id of the call; also the id of its log lines');
export const timestamp = z.string().describe('UTC time, %Y-%m-%dT%H:%M:%SZ');
export const secondsString = z.string().describe('seconds, as text ("0.125")');
export const resourceId = z.string().describe('resource id');

/** An integer that real clients send as a number or as text (`"count": "20"`). */
export const intText = z.union([z.number().int(), z.string().trim().regex(/^[+-]?\d+$/, 'must be an integer')]);
/** A number sent as a number or as text. */
export const numberText = z.union([z.number(), z.string().trim().regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, 'must be a number')]);

/**
 * A file part as the backend's body reader hands it over: its bytes in memory when it is small (`data`), else
 * in a temp file (`path`); exactly one of the two is set.
 */
export interface FilePart {
  field: string;
  filename: string;
  data: Uint8Array | null;
  path: string | null;
  size: number;
}
/** A file field's value: the stored part, or the file's text when a client sent it as a plain field. */
export type Upload = FilePart | string;
export const isFilePart = (value: unknown): value is FilePart =>
  typeof value === 'object' && value !== null && typeof (value as FilePart).size === 'number' && (typeof (value as FilePart).path === 'string' || (value as FilePart).data instanceof Uint8Array);
const isUpload = (value: unknown): value is Upload => typeof value === 'string' || isFilePart(value);

/** An uploaded file (multipart file part); some clients send the file's text as a plain field instead. */
export const upload = z.custom<Upload>(isUpload, 'must be a file').openapi({ type: 'string', format: 'binary' });

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The content types an operation's body is accepted in (real clients use all three for the same call). */
export type BodyForm = 'json' | 'form' | 'multipart';
export const ANY_FORM: readonly BodyForm[] = ['json', 'form', 'multipart'];

export interface Operation {
  /** operationId, unique. */
  id: string;
  method: HttpMethod;
  /** Public path, OpenAPI style (`/image_sets/_0000014/{image_set_id}`). */
  path: string;
  /** The backend route that serves it, Fastify style, when it differs from `path` (analysis: `/:word/:service_id`). */
  route?: string;
  /** Who answers: a region's backend (through the edge) or the edge itself. */
  servedBy: 'backend' | 'edge';
  summary: string;
  tag: string;
  /** Not in the specification: an Iris extension or a form only the released clients use. */
  extension?: 'iris' | 'clients';
  /** Which error shape the operation answers with. */
  errors: ErrorFamily;
  /** Spec error codes (`ERROR` keys) the operation may answer with, for the document. */
  errorCodes?: readonly ErrorKey[];
  params?: z.AnyZodObject;
  query?: z.AnyZodObject;
  body?: { schema: z.ZodTypeAny; forms: readonly BodyForm[]; required?: boolean };
  /** Body field → error answered when that field is missing or malformed (default: the family's invalid-input code). */
  fieldErrors?: Partial<Record<string, ErrorKey>>;
  /** The success answer; `null` for 204 No Content. */
  response: z.ZodTypeAny | null;
  /** Success status (200 unless said). */
  status?: number;
  /** The success answer is a file, not JSON. */
  responseMediaType?: string;
  /** Some bodies of a multiplexed operation answer 204 instead (image set POST without a body). */
  alsoNoContent?: boolean;
  /** Not sent through the access-key check (the document itself). */
  public?: boolean;
  /** The operator API: the admin bearer token instead of an access key. */
  admin?: boolean;
}

/** An operation, keeping its literal id and schemas in the type (the typed client reads answers by id). */
export const op = <const O extends Operation>(operation: O): O => operation;

/** `{request_id, results: [...]}`, the list answer of the resource family. */
export const listOf = <T extends z.ZodTypeAny>(item: T) => z.object({ request_id: requestId, results: z.array(item) });

/** Path parameters `{name}` as a zod object of strings. */
export const pathParams = <K extends string>(...names: K[]) =>
  z.object(Object.fromEntries(names.map((n) => [n, z.string().min(1).max(128)])) as Record<K, z.ZodString>);

/** What the edge does with a backend's answer: registry report out, hop headers out, non-JSON errors re-wrapped. */
import { ApiError, INTERNAL_HEADERS, type RegistryChanges } from '@iris/shared';

const DROPPED_RESPONSE_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'];

export function parseRegistryHeader(value: string | null): RegistryChanges | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as RegistryChanges;
    const ids = (list: unknown) => (Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : []);
    return { live: ids(parsed.live), deleted: ids(parsed.deleted) };
  } catch {
    console.warn('ignoring malformed x-iris-registry header');
    return undefined;
  }
}

/** The ApiError for an error answer that is not JSON (a proxy page, a crash), keeping the status family. */
export function wrapNonJsonError(status: number, text: string): ApiError {
  const snippet = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
  const detail = snippet ? `: ${snippet}` : '';
  if (status >= 500) {
    // A crash page may name hosts, paths or stack frames: the log keeps it, the caller gets the status only.
    console.error(`region backend failed (HTTP ${status})${detail}`);
    return new ApiError('backendUnavailable', `region backend failed (HTTP ${status})`);
  }
  if (status === 404) return new ApiError('notFound', `not found${detail}`);
  if (status === 405) return new ApiError('methodNotAllowed', `method not allowed${detail}`);
  if (status === 413) return new ApiError('payloadTooLarge', `request body too large${detail}`);
  return new ApiError([status, 1111], `backend refused the request (HTTP ${status})${detail}`);
}

/** Error answers are small; a longer one is cut here instead of being held whole. */
export const MAX_ERROR_BODY_BYTES = 256 * 1024;

/** The first `limit` bytes of a body as text (the rest is cancelled, never read). */
export async function boundedText(res: Response, limit = MAX_ERROR_BODY_BYTES): Promise<{ text: string; cut: boolean }> {
  if (!res.body) return { text: '', cut: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { text: text + decoder.decode(), cut: false };
    const room = limit - size;
    size += value.byteLength;
    text += decoder.decode(value.subarray(0, Math.max(0, room)), { stream: true });
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { text: text + decoder.decode(), cut: true };
    }
  }
}

function isJsonType(contentType: string | null): boolean {
  return /\bjson\b/i.test(contentType ?? '');
}

export interface BackendAnswer {
  response: Response;
  registry: RegistryChanges | undefined;
}

/** Normalises a backend response; throws ApiError for error bodies that are not JSON. */
export async function normaliseBackendResponse(res: Response): Promise<BackendAnswer> {
  const registry = parseRegistryHeader(res.headers.get(INTERNAL_HEADERS.registry));
  const headers = new Headers();
  for (const [name, value] of res.headers) {
    if (name.startsWith('x-iris-') || DROPPED_RESPONSE_HEADERS.includes(name)) continue;
    headers.append(name, value);
  }
  if (res.status >= 400) {
    const { text, cut } = await boundedText(res);
    let parsed = false;
    try {
      parsed = !cut && isJsonType(res.headers.get('content-type')) && typeof JSON.parse(text) === 'object';
    } catch {
      parsed = false;
    }
    if (!parsed) throw wrapNonJsonError(res.status, text);
    return { response: new Response(text, { status: res.status, headers }), registry };
  }
  const empty = res.status === 204 || res.status === 304 || res.body === null;
  return { response: new Response(empty ? null : res.body, { status: res.status, headers }), registry };
}

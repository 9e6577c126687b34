/** Response finishing shared by every path. */

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Adds the request id header and forbids compression: one released client asks for gzip but cannot
 * decompress. `Content-Encoding: identity` stops the Workers runtime (and wrangler dev) from compressing.
 */
export function finishResponse(response: Response, requestId: string): Response {
  let res = response;
  try {
    res.headers.set(REQUEST_ID_HEADER, requestId);
  } catch {
    res = new Response(res.body, res); // immutable headers (a fetched response): copy once
    res.headers.set(REQUEST_ID_HEADER, requestId);
  }
  if (res.body !== null && res.status !== 204 && res.status !== 304) res.headers.set('content-encoding', 'identity');
  return res;
}

export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  const res = new Response(JSON.stringify(body), { status, headers });
  res.headers.set('content-type', 'application/json; charset=utf-8');
  return res;
}

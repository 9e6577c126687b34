/**
 * The one image fetcher: every URL a client gives (data sets, queries, analysis, training, batch) is
 * downloaded here. Only http(s); the host is resolved and every address checked before connecting, and the
 * socket connects to exactly the checked addresses; each redirect is checked the same way; size and time
 * are bounded; the content must be an image by its magic bytes.
 */
import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import {
  defaultAddressPolicy,
  pinnedLookup,
  resolveChecked,
  type AddressPolicy,
  type Resolver,
} from './address-guard.js';
import { defaultDnsResolver, realResolvers } from './dns-resolver.js';
import { ImageFetchError } from './image-errors.js';
import { describeUnsupported, sniffImageFormat, type ImageFormat } from './image-format.js';

export { ImageFetchError, type ImageFetchErrorKind } from './image-errors.js';

export interface FetchOptions {
  /** Largest accepted body in bytes (after any content decoding). */
  maxBytes: number;
  /** Time allowed to open the TCP connection of one hop. */
  connectTimeoutMs: number;
  /** Time allowed for the whole download, redirects and body included. */
  timeoutMs: number;
  maxRedirects: number;
  /** Allow private, loopback and reserved addresses (local development and tests only). */
  allowPrivateAddresses: boolean;
  /** Host name → addresses; the default is c-ares on the system's name servers under a time limit (dns-resolver.ts). */
  resolve: Resolver;
  /** Which resolved addresses are acceptable when private ones are not allowed; default: public unicast. */
  isAllowedAddress: AddressPolicy;
  /** Cancels the download (e.g. the job was cancelled). */
  signal?: AbortSignal;
}

export interface FetchedImage {
  bytes: Uint8Array;
  format: ImageFormat;
  /** The URL the image was finally read from, after redirects. */
  finalUrl: string;
  downloadMs: number;
}

export const DEFAULT_FETCH_OPTIONS: Readonly<FetchOptions> = Object.freeze({
  maxBytes: 20 * 1024 * 1024,
  connectTimeoutMs: 10_000,
  timeoutMs: 30_000,
  maxRedirects: 3,
  allowPrivateAddresses: false,
  resolve: defaultDnsResolver,
  isAllowedAddress: defaultAddressPolicy,
});

export const USER_AGENT = 'Iris-ImageFetcher/1.0';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

// Keep-alive pools, one per policy, so a socket opened under one policy is never reused under another.
// Custom resolvers or policies get no pooling at all.
const agents = {
  http: { public: new http.Agent({ keepAlive: true }), private: new http.Agent({ keepAlive: true }) },
  https: { public: new https.Agent({ keepAlive: true }), private: new https.Agent({ keepAlive: true }) },
};

function agentFor(url: URL, o: FetchOptions): http.Agent | false {
  if (!realResolvers.has(o.resolve) || o.isAllowedAddress !== defaultAddressPolicy) return false;
  const pools = url.protocol === 'https:' ? agents.https : agents.http;
  return o.allowPrivateAddresses ? pools.private : pools.public;
}

function parseHttpUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ImageFetchError('invalid-url', `${what} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ImageFetchError('invalid-url', `${what} must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (!url.hostname) throw new ImageFetchError('invalid-url', `${what} has no host`);
  return url;
}

/** Downloads an image from a client-supplied URL under the rules above. */
export async function fetchImage(url: string, options: Partial<FetchOptions> = {}): Promise<FetchedImage> {
  const o: FetchOptions = { ...DEFAULT_FETCH_OPTIONS, ...options };
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([deadline.signal, o.signal]) : deadline.signal;
  const aborted = () =>
    deadline.signal.aborted
      ? new ImageFetchError('timeout', `download took longer than ${o.timeoutMs / 1000} s`)
      : new ImageFetchError('network', 'download cancelled');
  try {
    let current = parseHttpUrl(url, 'the image url');
    for (let redirects = 0; ; redirects++) {
      const addresses = await raceAbort(
        resolveChecked(current, { resolve: o.resolve, isAllowed: o.isAllowedAddress, allowPrivate: o.allowPrivateAddresses }),
        signal,
        aborted,
      );
      const response = await requestOnce(current, addresses, o, signal, aborted);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        response.destroy();
        if (redirects >= o.maxRedirects) {
          throw new ImageFetchError('too-many-redirects', `more than ${o.maxRedirects} redirects`);
        }
        current = parseHttpUrl(resolveLocation(location, current), `the redirect target of ${current.href}`);
        continue;
      }
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        response.destroy();
        throw new ImageFetchError('http-status', `the image server answered HTTP ${status}`, status);
      }
      const bytes = await readBody(response, o, signal, aborted);
      const format = sniffImageFormat(bytes);
      if (!format) {
        const known = describeUnsupported(bytes);
        const what = bytes.length === 0 ? 'an empty response' : known ? `${known} content` : 'content that is not a supported image';
        throw new ImageFetchError('not-an-image', `the URL returned ${what} (supported: JPEG, PNG, GIF, WebP, BMP, TIFF, AVIF)`);
      }
      return { bytes, format, finalUrl: current.href, downloadMs: performance.now() - started };
    }
  } finally {
    clearTimeout(timer);
  }
}

/** A Location header resolved against the URL it came from ('' when it is not a URL at all). */
function resolveLocation(location: string, from: URL): string {
  try {
    return new URL(location, from).href;
  } catch {
    return '';
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, aborted: () => ImageFetchError): Promise<T> {
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function networkError(url: URL, err: unknown): ImageFetchError {
  const code = String((err as NodeJS.ErrnoException | undefined)?.code ?? '');
  const host = url.host;
  let message = `download from ${host} failed`;
  if (code === 'ECONNREFUSED') message = `connection to ${host} refused`;
  else if (code === 'ECONNRESET' || code === 'EPIPE') message = `connection to ${host} was reset`;
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') message = `${host} is unreachable`;
  else if (code.startsWith('HPE_')) message = `${host} sent an invalid HTTP response`;
  else if (/CERT|SSL|TLS|SELF_SIGNED/.test(code)) message = `the TLS certificate of ${host} is not valid`;
  return new ImageFetchError('network', message, undefined, { cause: err });
}

function requestOnce(
  url: URL,
  addresses: Awaited<ReturnType<typeof resolveChecked>>,
  o: FetchOptions,
  signal: AbortSignal,
  aborted: () => ImageFetchError,
): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let connectTimer: NodeJS.Timeout | undefined;
    const fail = (err: ImageFetchError) => {
      clearTimeout(connectTimer);
      req.destroy();
      reject(err);
    };
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        // No cookies and no credentials from the URL: the fetcher acts for nobody.
        headers: { 'user-agent': USER_AGENT, accept: 'image/*,*/*;q=0.5', 'accept-encoding': 'identity' },
        lookup: pinnedLookup(addresses),
        agent: agentFor(url, o),
        signal,
      },
      (res) => {
        clearTimeout(connectTimer);
        resolve(res);
      },
    );
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => fail(new ImageFetchError('timeout', `connecting to ${url.host} took longer than ${o.connectTimeoutMs / 1000} s`)),
        o.connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (err) => {
      clearTimeout(connectTimer);
      reject(signal.aborted ? aborted() : networkError(url, err));
    });
    req.end();
  });
}

/** The body with any content encoding undone (we ask for none, but some servers compress anyway). */
function decoded(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  let inflate: Transform | null = null;
  if (encoding === 'gzip' || encoding === 'x-gzip') inflate = zlib.createGunzip();
  else if (encoding === 'deflate') inflate = zlib.createInflate();
  else if (encoding === 'br') inflate = zlib.createBrotliDecompress();
  // pipeline, not pipe: a connection error must reach the reader instead of stalling it.
  return inflate ? pipeline(response, inflate, () => {}) : response;
}

async function readBody(
  response: http.IncomingMessage,
  o: FetchOptions,
  signal: AbortSignal,
  aborted: () => ImageFetchError,
): Promise<Uint8Array> {
  const tooLarge = () => new ImageFetchError('too-large', `the image is larger than ${formatBytes(o.maxBytes)}`);
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > o.maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const body = decoded(response);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > o.maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ImageFetchError) throw err;
    if (signal.aborted) throw aborted();
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (body !== response && (code.startsWith('Z_') || code.startsWith('ERR__'))) {
      throw new ImageFetchError('network', 'the image server sent a corrupt compressed body', undefined, { cause: err });
    }
    throw new ImageFetchError('network', 'the connection closed before the image was complete', undefined, { cause: err });
  } finally {
    response.destroy();
    if (body !== response) body.destroy();
  }
  if (signal.aborted) throw aborted();
  const joined = Buffer.concat(chunks, total);
  return new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength);
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${+(n / 1024).toFixed(1)} KB` : `${n} bytes`;
}

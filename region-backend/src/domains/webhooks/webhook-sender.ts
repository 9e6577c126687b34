/**
 * One delivery attempt: POST the body to the endpoint, under the same guard as image downloads (the host is
 * resolved under a time limit, every address checked, the socket pinned to the checked addresses), with no
 * redirect followed, one time limit for the whole attempt and at most a few kilobytes of the answer read.
 */
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, resolveChecked, type Resolver } from '../../images/address-guard.js';
import { ImageFetchError } from '../../images/image-errors.js';
import { parseEndpointUrl, webhookAddressPolicy } from './webhook-url.js';

export const WEBHOOK_USER_AGENT = 'Iris-Webhooks/1.0';
/** Bytes of the receiver's answer read (and dropped); past it the connection is closed. */
const MAX_ANSWER_BYTES = 16 * 1024;

export interface SendOptions {
  timeoutMs: number;
  resolve: Resolver;
  allowLoopback: boolean;
}

export interface SendOutcome {
  ok: boolean;
  /** The receiver's status, when it answered. */
  httpStatus: number | null;
  /** Why the attempt failed (safe to show the account: never a resolved internal address). */
  error: string | null;
}

const failed = (error: string, httpStatus: number | null = null): SendOutcome => ({ ok: false, httpStatus, error });

export async function sendWebhook(urlText: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendOutcome> {
  let url: URL;
  try {
    url = parseEndpointUrl(urlText, options.allowLoopback);
  } catch (err) {
    return failed((err as Error).message);
  }
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    const addresses = await Promise.race([
      resolveChecked(url, { resolve: options.resolve, isAllowed: webhookAddressPolicy(options.allowLoopback), allowPrivate: false }),
      new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(deadline.reason), { once: true })),
    ]);
    return await post(url, addresses, body, headers, deadline);
  } catch (err) {
    if (deadline.aborted) return failed(`no answer within ${options.timeoutMs / 1000} s`);
    if (err instanceof ImageFetchError) return failed(err.message);
    const code = String((err as NodeJS.ErrnoException | undefined)?.code ?? '');
    if (code === 'ECONNREFUSED') return failed(`connection to ${url.host} refused`);
    if (/CERT|SSL|TLS|SELF_SIGNED/.test(code)) return failed(`the TLS certificate of ${url.host} is not valid`);
    return failed(`delivery to ${url.host} failed${code ? ` (${code})` : ''}`);
  }
}

function post(url: URL, addresses: Awaited<ReturnType<typeof resolveChecked>>, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<SendOutcome> {
  const client = url.protocol === 'https:' ? https : http;
  const bytes = Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bytes.length), 'user-agent': WEBHOOK_USER_AGENT },
        lookup: pinnedLookup(addresses),
        agent: false,
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const settle = () => {
          if (status >= 200 && status <= 299) resolve({ ok: true, httpStatus: status, error: null });
          else if (status >= 300 && status <= 399) resolve(failed(`the endpoint answered HTTP ${status} (redirects are not followed)`, status));
          else resolve(failed(`the endpoint answered HTTP ${status}`, status));
        };
        // The status decides; the answer is only drained (or cut) so the connection ends cleanly.
        res.on('end', settle);
        res.on('close', settle);
        res.on('error', () => settle());
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

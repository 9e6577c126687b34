/**
 * Which endpoint URLs are accepted: https with a host whose every address is public. The loopback allowance
 * (IRIS_WEBHOOK_ALLOW_LOOPBACK, local development and tests) adds http and loopback addresses, nothing else:
 * private, link-local and reserved addresses stay refused, at registration and at every delivery.
 */
import { BlockList, isIP } from 'node:net';
import { ApiError } from '@iris/shared';
import { bareHost, resolveChecked, type AddressPolicy, type ResolvedAddress, type Resolver } from '../../images/address-guard.js';
import { ImageFetchError } from '../../images/image-errors.js';
import { isPublicAddress } from '../../images/ip-address.js';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (!family) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return LOOPBACK.check(mapped[1]!, 'ipv4');
    return LOOPBACK.check(address, 'ipv6');
  }
  return LOOPBACK.check(address, 'ipv4');
}

export function webhookAddressPolicy(allowLoopback: boolean): AddressPolicy {
  return (address) => isPublicAddress(address) || (allowLoopback && isLoopbackAddress(address));
}

/** Why `text` cannot be an endpoint URL (its syntax alone), or the parsed URL. */
export function parseEndpointUrl(text: string, allowLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ApiError('invalidData', 'url is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(allowLoopback && url.protocol === 'http:')) {
    throw new ApiError('invalidData', allowLoopback ? 'url must use https or http' : 'url must use https');
  }
  if (!url.hostname) throw new ApiError('invalidData', 'url has no host');
  if (url.username || url.password) throw new ApiError('invalidData', 'url must not carry credentials');
  if (url.hash) throw new ApiError('invalidData', 'url must not have a fragment');
  const host = bareHost(url);
  if (url.protocol === 'http:' && !(host === 'localhost' || isLoopbackAddress(host))) {
    throw new ApiError('invalidData', 'url must use https (http is allowed on loopback only)');
  }
  return url;
}

/** Resolves the URL's host under the endpoint policy; refusals answer 400 (registration). */
export async function checkEndpointAddresses(url: URL, resolve: Resolver, allowLoopback: boolean): Promise<ResolvedAddress[]> {
  try {
    return await resolveChecked(url, { resolve, isAllowed: webhookAddressPolicy(allowLoopback), allowPrivate: false });
  } catch (err) {
    if (err instanceof ImageFetchError) throw new ApiError('invalidData', `url refused: ${err.message}`);
    throw err;
  }
}

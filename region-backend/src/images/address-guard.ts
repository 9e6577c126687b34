/**
 * Resolves a URL's host once, checks every address it resolved to, and hands the HTTP client a `lookup`
 * that returns exactly those checked addresses. The socket therefore connects to what was checked: a DNS
 * answer that changes between the check and the connection (rebinding) has no way in.
 */
import { isIP, type LookupFunction } from 'node:net';
import { ImageFetchError } from './image-errors.js';
import { isPublicAddress } from './ip-address.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;
export type AddressPolicy = (address: string) => boolean;

/** The URL's host without IPv6 brackets, as the URL parser normalised it (odd IPv4 spellings included). */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

function resolveError(hostname: string, err: unknown): ImageFetchError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = code === 'ENOTFOUND' || code === 'ENODATA' ? `host ${hostname} not found` : `host ${hostname} cannot be resolved`;
  return new ImageFetchError('network', message, undefined, { cause: err });
}

/**
 * Resolves and checks the host of `url`. Refuses the whole host when any of its addresses is forbidden
 * (an attacker's name may list one public and one internal address and let the client pick).
 */
export async function resolveChecked(
  url: URL,
  options: { resolve: Resolver; isAllowed: AddressPolicy; allowPrivate: boolean },
): Promise<ResolvedAddress[]> {
  const host = bareHost(url);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await options.resolve(host);
    } catch (err) {
      throw resolveError(host, err);
    }
    if (!addresses.length) throw resolveError(host, undefined);
  }
  if (!options.allowPrivate && addresses.some((a) => !options.isAllowed(a.address))) {
    throw new ImageFetchError(
      'forbidden-address',
      `${url.protocol}//${url.host}/ is not allowed: it points to a private, loopback, link-local or reserved address`,
    );
  }
  return addresses;
}

/** A `lookup` for http(s).request that answers only with the already-checked addresses. */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, opts, callback) => {
    const wanted = typeof opts === 'object' && opts.family ? addresses.filter((a) => a.family === opts.family) : addresses;
    const pool = wanted.length ? wanted : addresses;
    if (typeof opts === 'object' && opts.all) {
      (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, pool);
    } else {
      const first = pool[0]!;
      callback(null, first.address, first.family);
    }
  };
}

export const defaultAddressPolicy: AddressPolicy = isPublicAddress;

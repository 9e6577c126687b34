/**
 * Host names of client URLs are resolved with c-ares (node:dns Resolver), never with `dns.lookup`:
 * getaddrinfo runs on the libuv thread pool that file writes, decoding and every request's signature check
 * share, so names whose servers never answer would hold its threads and stall every tenant. Each resolution
 * has a time limit. Names of the hosts file (`localhost` among them) answer from the file, as getaddrinfo
 * would, without a query.
 */
import { readFileSync } from 'node:fs';
import { Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ResolvedAddress, Resolver } from './address-guard.js';

export const DEFAULT_DNS_TIMEOUT_MS = 5_000;
/** A hosts file larger than this is not read (it is the operator's file, but a bound costs nothing). */
const MAX_HOSTS_BYTES = 1024 * 1024;

export interface DnsOptions {
  /** Time limit of one resolution, all its queries included. */
  timeoutMs: number;
  /** Name servers (`ip` or `ip:port`, `[ipv6]:port`); default: the system's (resolv.conf). */
  servers?: string[];
  /** Default /etc/hosts; null: none. */
  hostsFile?: string | null;
}

/** Resolvers whose answers are real DNS (not a test's fake), so the fetcher may pool connections under them. */
export const realResolvers = new WeakSet<Resolver>();

function canonicalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** name → addresses from a hosts file's text (comments and malformed lines skipped). */
export function parseHosts(text: string): Map<string, ResolvedAddress[]> {
  const names = new Map<string, ResolvedAddress[]>();
  for (const raw of text.split('\n')) {
    const [address, ...aliases] = raw.replace(/#.*/, '').trim().split(/\s+/);
    const family = isIP(address ?? '');
    if (!family) continue;
    for (const alias of aliases) {
      const key = canonicalName(alias);
      const list = names.get(key) ?? [];
      if (!list.some((a) => a.address === address)) list.push({ address: address!, family: family === 6 ? 6 : 4 });
      names.set(key, list);
    }
  }
  return names;
}

function readHosts(file: string | null): Map<string, ResolvedAddress[]> {
  let names = new Map<string, ResolvedAddress[]>();
  if (file) {
    try {
      const bytes = readFileSync(file);
      if (bytes.length <= MAX_HOSTS_BYTES) names = parseHosts(bytes.toString('utf8'));
    } catch {
      // no hosts file: only DNS
    }
  }
  // RFC 6761: localhost is loopback, whatever the file says or lacks.
  if (!names.has('localhost')) names.set('localhost', [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
  return names;
}

function timeoutError(hostname: string, ms: number): Error {
  return Object.assign(new Error(`resolving ${hostname} took longer than ${ms} ms`), { code: 'ETIMEOUT' });
}

/** A Resolver (for the image fetcher) over c-ares with a time limit, answering hosts-file names from the file. */
export function createDnsResolver(options: DnsOptions): Resolver {
  const hosts = readHosts(options.hostsFile === undefined ? '/etc/hosts' : options.hostsFile);
  // One try per server with the whole limit: c-ares gives up on its own, so no query outlives the call.
  const dns = new DnsResolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers?.length) dns.setServers(options.servers);
  const resolve: Resolver = async (hostname) => {
    const known = hosts.get(canonicalName(hostname));
    if (known) return known;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timeoutError(hostname, options.timeoutMs)), options.timeoutMs);
    });
    const v4 = dns.resolve4(hostname);
    const v6 = dns.resolve6(hostname);
    // Settled either way, so a query ending after the limit is not an unhandled rejection.
    const both = Promise.allSettled([v4, v6]);
    try {
      const [a, aaaa] = await Promise.race([both, limit]);
      const found: ResolvedAddress[] = [
        ...(a.status === 'fulfilled' ? a.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(aaaa.status === 'fulfilled' ? aaaa.value.map((address) => ({ address, family: 6 as const })) : []),
      ];
      if (found.length) return found;
      throw a.status === 'rejected' ? a.reason : aaaa.status === 'rejected' ? aaaa.reason : Object.assign(new Error(`${hostname} has no address`), { code: 'ENODATA' });
    } finally {
      clearTimeout(timer);
    }
  };
  realResolvers.add(resolve);
  return resolve;
}

/** The resolver of fetches that were given none: the system's name servers, the default limit. */
export const defaultDnsResolver = createDnsResolver({ timeoutMs: DEFAULT_DNS_TIMEOUT_MS });

/**
 * Which IP addresses the image fetcher may connect to. Anything that is not plain public unicast is
 * refused: private, loopback, link-local, CGNAT, unique-local, multicast, documentation and reserved
 * ranges, and the IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by
 * the IPv4 address they carry, so `::ffff:127.0.0.1` is as loopback as `127.0.0.1`.
 */
import { isIP } from 'node:net';

type Cidr = readonly [prefix: number[], bits: number];

// IANA IPv4 special-purpose registry, minus nothing: none of these is a place to download images from.
const IPV4_BLOCKED: Cidr[] = [
  [[0, 0, 0, 0], 8], // "this network", includes 0.0.0.0
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16], // link-local, cloud metadata endpoints
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, includes 255.255.255.255
];

/** IPv6 ranges refused outright (as 16-bit groups). */
const IPV6_BLOCKED: Cidr[] = [
  [[0x0064, 0xff9b, 0x0001], 48], // local-use NAT64
  [[0x0100, 0, 0, 0], 64], // discard-only
  [[0x2001, 0x0000], 23], // IETF protocol assignments, includes Teredo 2001::/32
  [[0x2001, 0x0db8], 32], // documentation
  [[0x3fff, 0x0000], 20], // documentation
  [[0x5f00, 0], 16], // segment routing SIDs
  [[0xfc00], 7], // unique-local
  [[0xfe80], 10], // link-local
  [[0xfec0], 10], // site-local (deprecated)
  [[0xff00], 8], // multicast
];

function inCidr(value: readonly number[], [prefix, bits]: Cidr, width: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= width) {
    const mask = bits >= width ? (1 << width) - 1 : ((1 << width) - 1) ^ ((1 << (width - bits)) - 1);
    if (((value[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** The four bytes of a dotted-quad IPv4 address (as produced by the URL parser and DNS). */
export function parseIpv4(address: string): number[] | null {
  if (isIP(address) !== 4) return null;
  return address.split('.').map(Number);
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped), or null if it is not IPv6. */
export function parseIpv6(address: string): number[] | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) !== 6) return null;
  let text = bare;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIpv4(dotted[1]!)!;
    text = `${text.slice(0, dotted.index)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(groups: readonly number[]): number[] | null {
  const g = (i: number) => groups[i] ?? 0;
  const quad = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const zeros = (from: number, to: number) => groups.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g(5) === 0xffff) return quad(g(6), g(7)); // ::ffff:a.b.c.d
  if (zeros(0, 4) && g(4) === 0xffff && g(5) === 0) return quad(g(6), g(7)); // ::ffff:0:a.b.c.d (SIIT)
  if (zeros(0, 6)) return quad(g(6), g(7)); // ::a.b.c.d (compatible; also :: and ::1)
  if (g(0) === 0x64 && g(1) === 0xff9b && zeros(2, 6)) return quad(g(6), g(7)); // NAT64 well-known prefix
  if (g(0) === 0x2002) return quad(g(1), g(2)); // 6to4
  return null;
}

function isPublicIpv4(bytes: readonly number[]): boolean {
  return !IPV4_BLOCKED.some((cidr) => inCidr(bytes, cidr, 8));
}

/**
 * True when the address is public unicast and so may be fetched from. Anything unparsable is not public.
 * Hostnames are not addresses: resolve them first.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIpv4(address);
  if (v4) return isPublicIpv4(v4);
  const v6 = parseIpv6(address);
  if (!v6) return false;
  const inner = embeddedIpv4(v6);
  if (inner) return isPublicIpv4(inner);
  // Only 2000::/3 is allocated as global unicast; everything else is reserved or special.
  if ((v6[0]! & 0xe000) !== 0x2000) return false;
  return !IPV6_BLOCKED.some((cidr) => inCidr(v6, cidr, 16));
}

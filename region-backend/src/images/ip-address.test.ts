import { describe, expect, it } from 'vitest';
import { embeddedIpv4, isPublicAddress, parseIpv6 } from './ip-address.js';

describe('isPublicAddress', () => {
  it.each([
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.0.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.251',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '::ffff:0:7f00:1',
    '64:ff9b::10.0.0.1',
    '64:ff9b:1::1',
    '2002:c0a8:0101::1',
    '2001::1',
    '2001:db8::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    '100::1',
    '3fff::1',
    'not an address',
    'example.com',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.169.0.1', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:0808:0808::1'])(
    'accepts %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('IPv6 parsing', () => {
  it('expands compressed forms and dotted tails', () => {
    expect(parseIpv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6('[2001:db8::8:800:200c:417a]')).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
    expect(parseIpv6('127.0.0.1')).toBeNull();
  });

  it('finds the IPv4 address carried by mapped, NAT64 and 6to4 forms', () => {
    expect(embeddedIpv4(parseIpv6('::ffff:7f00:1')!)).toEqual([127, 0, 0, 1]);
    expect(embeddedIpv4(parseIpv6('64:ff9b::a00:1')!)).toEqual([10, 0, 0, 1]);
    expect(embeddedIpv4(parseIpv6('2002:a9fe:a9fe::')!)).toEqual([169, 254, 169, 254]);
    expect(embeddedIpv4(parseIpv6('2606:4700::1')!)).toBeNull();
  });
});

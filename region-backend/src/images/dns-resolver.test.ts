import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsResolver, parseHosts } from './dns-resolver.js';

describe('the DNS resolver of client URLs', () => {
  let silent: dgram.Socket;
  let queries = 0;
  beforeAll(async () => {
    silent = dgram.createSocket('udp4');
    silent.on('message', () => queries++);
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  });
  afterAll(() => silent?.close());

  it('answers hosts-file names (localhost always, any case, with a trailing dot) without a query', async () => {
    const resolve = createDnsResolver({ timeoutMs: 500, servers: [`127.0.0.1:${silent.address().port}`], hostsFile: null });
    const before = queries;
    expect(await resolve('LOCALHOST.')).toEqual([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
    expect(queries).toBe(before);
  });

  it('reads hosts files: comments, aliases, IPv6, malformed lines', () => {
    const hosts = parseHosts('# comment\n127.0.0.1 localhost vm # trailing\n::1 ip6-localhost localhost\nnot-an-ip name\n\n10.0.0.5\tImages.Local.\n');
    expect(hosts.get('localhost')).toEqual([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
    expect(hosts.get('images.local')).toEqual([{ address: '10.0.0.5', family: 4 }]);
    expect(hosts.has('name')).toBe(false);
  });

  it('gives up on a name server that never answers, within its limit, with a time-out error', async () => {
    const resolve = createDnsResolver({ timeoutMs: 300, servers: [`127.0.0.1:${silent.address().port}`], hostsFile: null });
    const before = queries;
    await expect(resolve('never.iris.test')).rejects.toMatchObject({ code: expect.stringMatching(/TIMEOUT/) });
    expect(queries).toBeGreaterThan(before);
  });
});

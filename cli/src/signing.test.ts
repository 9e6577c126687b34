/** Signed calls reproduce the specification's test vectors (PROTOCOL.md), and the config file stays private. */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile, writeConfigFile } from './config-file.js';
import { resolveProfile } from './profile.js';
import { signatureHeaders, signingFetch } from './signing.js';

const fixed = { timestamp: 1500000000, nonce: 'abcdefghijklmnopqrstuvwxyz012345' };
const keyHeaders = (extra: Record<string, string> = {}) => new Headers({ 'x-ca-accesskeyid': 'AK', 'x-ca-version': '1', ...extra });

describe('request signatures', () => {
  it('sign form parameters as the released clients do', () => {
    const headers = signatureHeaders('SK', { method: 'POST', url: new URL('http://h/search/s'), headers: keyHeaders({ 'content-type': 'application/x-www-form-urlencoded' }), body: 'url=https://example.com/a.jpg&loc=0-0-1-1&count=20' }, fixed);
    expect(headers['x-ca-signature']).toBe('2sLP/BPpE/wIAFPxAMA2ndsJ8fM=');
  });

  it('append the exact JSON body', () => {
    const headers = signatureHeaders('SK', { method: 'POST', url: new URL('http://h/image_sets/_0000014'), headers: keyHeaders({ 'content-type': 'application/json' }), body: '{"name": "new name"}' }, fixed);
    expect(headers['x-ca-signature']).toBe('bVpcWx5NFX53+OkTzFthYA9J6m0=');
  });

  it('leave file parts out of a multipart body', () => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array([1, 2, 3])]), 'a.jpg');
    const headers = signatureHeaders('SK', { method: 'POST', url: new URL('http://h/x'), headers: keyHeaders(), body: form }, fixed);
    expect(headers['x-ca-signature']).toBe('D034PiBLSnVKreCQkg84HkyYu1E=');
  });

  it('sign every call of a signing fetch with a fresh nonce', async () => {
    const seen: Headers[] = [];
    const fetcher = signingFetch('SK', async (_input, init) => {
      seen.push(new Headers(init?.headers));
      return new Response('{}');
    });
    await fetcher(new URL('http://h/get_image_sets/_0000014'), { method: 'GET', headers: { 'x-ca-accesskeyid': 'AK', 'x-ca-version': '1' } });
    await fetcher(new URL('http://h/get_image_sets/_0000014'), { method: 'GET', headers: { 'x-ca-accesskeyid': 'AK', 'x-ca-version': '1' } });
    expect(seen.map((h) => h.get('x-ca-signature'))).toEqual([expect.any(String), expect.any(String)]);
    expect(seen[0]!.get('x-ca-signaturenonce')).not.toBe(seen[1]!.get('x-ca-signaturenonce'));
    expect(seen[0]!.get('requestmethod')).toBe('GET');
  });
});

describe('the login config file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-cli-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is written readable by its owner only, and its secret signs only for its own key', () => {
    const file = path.join(dir, 'sub', 'config.json');
    writeConfigFile(file, { url_root: 'http://h:1', access_key_id: 'AK', secret_key: 'SK' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readConfigFile(file)).toEqual({ url_root: 'http://h:1', access_key_id: 'AK', secret_key: 'SK' });
    const env = { IRIS_CONFIG: file };
    expect(resolveProfile({}, env, dir)).toEqual({ urlRoot: 'http://h:1', accessKeyId: 'AK', lang: 'en', secret: 'SK' });
    expect(resolveProfile({ key: 'OTHER' }, env, dir)).toEqual({ urlRoot: 'http://h:1', accessKeyId: 'OTHER', lang: 'en' });
  });
});

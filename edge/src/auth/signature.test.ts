import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAcceptedNonce, NONCE_CHARS } from './signature-check.js';
import { hmacSha1Base64, stringToSign } from './signature.js';

const HEADERS = {
  'x-ca-accesskeyid': 'AK',
  'x-ca-version': '1',
  'x-ca-timestamp': '1500000000',
  'x-ca-signaturenonce': 'abcdefghijklmnopqrstuvwxyz012345',
  requestmethod: 'POST',
};

describe('PROTOCOL.md test vectors', () => {
  it('vector 1: plain parameters', async () => {
    const text = stringToSign({ headers: {}, params: [['url', 'http://productai.cn'], ['loc', '0-0-1-1']] });
    expect(text).toBe('loc=0-0-1-1&url=http://productai.cn');
    expect(await hmacSha1Base64('1234567', text)).toBe('yXj0ZztzO02Ip0jBWel69YnsAjA=');
  });

  it('vector 2: signed headers and form parameters, sorted by byte order', async () => {
    const text = stringToSign({ headers: HEADERS, params: [['url', 'https://example.com/a.jpg'], ['loc', '0-0-1-1'], ['count', '20']] });
    expect(text).toBe(
      'count=20&loc=0-0-1-1&requestmethod=POST&url=https://example.com/a.jpg&x-ca-accesskeyid=AK&x-ca-signaturenonce=abcdefghijklmnopqrstuvwxyz012345&x-ca-timestamp=1500000000&x-ca-version=1',
    );
    expect(await hmacSha1Base64('SK', text)).toBe('2sLP/BPpE/wIAFPxAMA2ndsJ8fM=');
  });

  it('vector 3: JSON body text appended without a separator', async () => {
    const text = stringToSign({ headers: HEADERS, params: [], jsonBody: '{"name": "new name"}' });
    expect(text).toBe(
      'requestmethod=POST&x-ca-accesskeyid=AK&x-ca-signaturenonce=abcdefghijklmnopqrstuvwxyz012345&x-ca-timestamp=1500000000&x-ca-version=1{"name": "new name"}',
    );
    expect(await hmacSha1Base64('SK', text)).toBe('bVpcWx5NFX53+OkTzFthYA9J6m0=');
  });

  it('vector 4: multipart with only a file part signs the headers alone', async () => {
    const text = stringToSign({ headers: HEADERS, params: [] });
    expect(await hmacSha1Base64('SK', text)).toBe('D034PiBLSnVKreCQkg84HkyYu1E=');
  });
});

describe('signing string rules', () => {
  it('leaves out unsigned parameters and compares keys by UTF-8 bytes', () => {
    const text = stringToSign({
      headers: {},
      params: [['é', '1'], ['z', '2'], ['user-agent', 'x'], ['x-ca-signature', 's'], ['Z', '3']],
    });
    expect(text).toBe('Z=3&z=2&é=1');
  });

  it('strips values only in the Python form', () => {
    expect(stringToSign({ headers: {}, params: [['url', ' http://a.cn/x.jpg \n']] })).toBe('url= http://a.cn/x.jpg \n');
    expect(stringToSign({ headers: {}, params: [['url', ' http://a.cn/x.jpg \n']], strip: true })).toBe('url=http://a.cn/x.jpg');
  });
});

describe('signature nonces', () => {
  it('accepts exactly the lengths 16 to 36, whatever the characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (nonce) => {
        expect(isAcceptedNonce(nonce)).toBe(nonce.length >= NONCE_CHARS.min && nonce.length <= NONCE_CHARS.max);
      }),
      { numRuns: 500 },
    );
    expect(isAcceptedNonce(undefined)).toBe(false);
    expect(isAcceptedNonce('abcdefghijklmnopqrstuvwxyz012345')).toBe(true);
    expect(isAcceptedNonce('')).toBe(false);
  });
});

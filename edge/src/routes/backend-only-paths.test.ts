/** Backend health, metrics and internal paths are not reachable through the edge, with or without a key. */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { callJson, keyHeaders, newAccount, type BackendEcho, type TestAccount } from '../../test/helpers.js';
import { firstSegment } from './backend-only-paths.middleware.js';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

const NAMES = ['readyz', 'livez', 'healthz', 'metrics', 'internal'];

async function expectHidden(path: string, headers: Record<string, string>) {
  const res = await callJson<BackendEcho & { error_code?: number }>(path, { headers });
  expect(res.status, path).toBe(404);
  expect(res.body.error_code, path).toBe(1108);
  // The fake backend answers /readyz with its checks and everything else with an echo: neither came back.
  expect(JSON.stringify(res.body), path).not.toMatch(/checks|database|"url"/);
}

describe('backend-only paths', () => {
  it('answers 404/1108 for /readyz, /livez, /healthz, /metrics and /internal/* with a key, without one, and in disguise', async () => {
    const variants = ['/readyz', '/livez', '/healthz', '/metrics', '/internal/registry/image_set/made00000000000000001', '/READYZ', '/readyz/', '/%72eadyz', '/%2572eadyz', '//readyz', '/./readyz', '/readyz;x', '/readyz?verbose=1', '/Healthz/'];
    for (const path of variants) {
      await expectHidden(path, keyHeaders(account));
      await expectHidden(path, {});
    }
  }, 60_000);

  it('still forwards ordinary paths that merely contain those words', async () => {
    const res = await callJson<BackendEcho>('/unlisted/readyz', { headers: keyHeaders(account) });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe('/unlisted/readyz');
  });

  it('property: any case, percent-encoding, slashes and parameters of those names read as the name', () => {
    const encodeSome = (text: string, mask: boolean[]) =>
      [...text].map((ch, i) => (mask[i % mask.length] ? `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}` : ch)).join('');
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('', '/', '/x', ';a=b', '//'),
        (name, upper, encoded, slashes, tail) => {
          const cased = [...name].map((ch, i) => (upper[i % upper.length] ? ch.toUpperCase() : ch)).join('');
          const path = `${'/'.repeat(slashes)}${encodeSome(cased, encoded)}${tail}`;
          expect(firstSegment(path)).toBe(name);
        },
      ),
    );
  });
});

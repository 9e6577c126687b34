/** The web console's pages and files are static assets: their security headers come from `_headers`. */
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';

describe('console security headers', () => {
  it('serves the console page with a CSP header that forbids framing, X-Frame-Options, nosniff and a referrer policy', async () => {
    for (const path of ['/console/', '/console/index.html']) {
      const res = await SELF.fetch(`http://localhost${path}`);
      const body = await res.text();
      expect(res.status, path).toBe(200);
      expect(body).toContain('<div id="app">');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('sends the same headers with the console scripts', async () => {
    const page = await (await SELF.fetch('http://localhost/console/')).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const res = await SELF.fetch(`http://localhost${script}`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

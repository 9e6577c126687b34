import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInternal } from '@iris/shared';
import { startTestBackend, type TestBackend } from './support/test-app.js';

/** A self-signed certificate for 127.0.0.1 (openssl, as operators would make one). */
function selfSigned(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { cert, key };
}

function get(port: number, url: string, headers: Record<string, string>, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: url, headers, ca: readFileSync(ca) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('backend over TLS (IRIS_TLS_CERT_FILE, IRIS_TLS_KEY_FILE)', () => {
  let dir: string;
  let files: { cert: string; key: string };
  let backend: TestBackend;
  let port: number;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'iris-tls-'));
    files = selfSigned(dir);
    backend = await startTestBackend({ IRIS_TLS_CERT_FILE: files.cert, IRIS_TLS_KEY_FILE: files.key }, { workers: false });
    await backend.app.listen({ host: '127.0.0.1', port: 0 });
    port = (backend.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await backend?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers signed calls over HTTPS, verified against its certificate', async () => {
    const signed = await signInternal(backend.config.internalSecret, { method: 'GET', pathWithQuery: '/batch/_1000001/services', accountId: 1, context: { requestId: 'tls', lang: 'en' } });
    const res = await get(port, '/batch/_1000001/services', signed, files.cert);
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ is_error: 0 });
  });
});

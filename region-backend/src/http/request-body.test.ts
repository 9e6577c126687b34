import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@iris/shared';
import { multipart } from '../../test/support/test-app.js';
import { registerErrorHandling } from './error-handler.js';
import { readBody, registerBodyHandling } from './request-body.js';

describe('request bodies', () => {
  let app: FastifyInstance;
  let tmpDir: string;
  beforeAll(async () => {
    tmpDir = mkdtempSync(path.join(os.tmpdir(), 'iris-body-'));
    app = Fastify({ bodyLimit: 2 * LIMITS.uploadBytes });
    registerBodyHandling(app);
    registerErrorHandling(app);
    app.post('/upload', async (request) => {
      const body = await readBody(request, { tmpDir });
      return { sizes: body.files.map((f) => f.size) };
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(tmpDir, { recursive: true, force: true });
  });

  const upload = (size: number) => {
    const body = multipart({ urls_to_add: { filename: 'urls.csv', content: Buffer.alloc(size, 0x61) } });
    return app.inject({ method: 'POST', url: '/upload', payload: body.payload, headers: body.headers });
  };

  it('takes uploaded files under 50 MB and refuses one of 50 MB', async () => {
    const under = await upload(LIMITS.uploadBytes - 1);
    expect(under.statusCode).toBe(200);
    expect(under.json().sizes).toEqual([LIMITS.uploadBytes - 1]);

    const at = await upload(LIMITS.uploadBytes);
    expect(at.statusCode).toBe(413);
    expect(at.json()).toMatchObject({ error_code: 1110, message: expect.stringMatching(/under 50 MB/) });
  });
});

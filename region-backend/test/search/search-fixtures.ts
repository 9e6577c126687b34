/**
 * Test images for search: real photos (crops of the sample collage and screenshots shipped in the
 * @vladmandic/human package) and generated photo-like pictures, served from a loopback HTTP server; and a
 * backend that can be started again on the same database and data directory (restarts, several processes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { newResourceId } from '@iris/shared';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { photoJpeg } from '../support/test-images.js';
import { resolveModelFile } from '../../src/vision/runtime/model-config.js';
const packageFile = (pkg: string, relative: string) => resolveModelFile(`pkg:${pkg}/${relative}`, '.');
import { callSigned, multipart, TEST_SECRET, type CallInput } from '../support/test-app.js';
import { createTestDatabase } from '../support/test-database.js';
import { startImageServer, type ImageServer } from '../support/image-server.js';
import { waitUntil } from '../support/wait-for.js';

const SAMPLES = packageFile('@vladmandic/human', 'assets/samples.jpg');
/** Seven photos of the collage's top strip (x from, x to; 157 px high; the party photo left out: the regions below come from it) and four regions of the big photo. */
const STRIP = [
  [0, 157],
  [165, 314],
  [325, 538],
  [544, 634],
  [640, 787],
  [795, 896],
  [1128, 1280],
] as const;
const BIG = [
  { left: 0, top: 200, width: 560, height: 420 },
  { left: 640, top: 200, width: 640, height: 360 },
  { left: 200, top: 640, width: 480, height: 480 },
  { left: 760, top: 560, width: 520, height: 560 },
] as const;
const SCREENSHOTS = ['screenshot-facedetect.jpg', 'screenshot-faceid.jpg', 'screenshot-facematch.jpg'];

/** 18 distinct JPEG images: 7 collage photos, 4 regions of a party photo, 3 screenshots, 4 generated pictures. */
export async function searchImages(): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const [from, to] of STRIP) out.push(await sharp(SAMPLES).extract({ left: from, top: 0, width: to - from, height: 157 }).resize({ height: 314 }).jpeg({ quality: 92 }).toBuffer());
  for (const region of BIG) out.push(await sharp(SAMPLES).extract(region).jpeg({ quality: 92 }).toBuffer());
  for (const name of SCREENSHOTS) out.push(await sharp(packageFile('@vladmandic/human', `assets/${name}`)).resize({ width: 640, withoutEnlargement: true }).jpeg({ quality: 90 }).toBuffer());
  for (let seed = 1; seed <= 4; seed++) out.push(await photoJpeg(480, 360, seed * 7));
  return out;
}

/** The images served at `/img/<n>.jpg`; more can be added with `server.set`. */
export async function serveImages(images: Buffer[]): Promise<ImageServer> {
  const server = await startImageServer();
  images.forEach((img, n) => server.set(`/img/${n}.jpg`, img));
  return server;
}

/** A picture holding `image` in its top-left quarter and another picture elsewhere: with loc 0-0-0.5-0.5 only `image` is seen. */
export async function composite(image: Buffer, other: Buffer): Promise<Buffer> {
  const tile = (img: Buffer) => sharp(img).resize(320, 240, { fit: 'fill' }).toBuffer();
  return sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 30, g: 30, b: 30 } } })
    .composite([
      { input: await tile(image), left: 0, top: 0 },
      { input: await tile(other), left: 320, top: 0 },
      { input: await tile(other), left: 0, top: 240 },
      { input: await tile(other), left: 320, top: 240 },
    ])
    .jpeg({ quality: 90 })
    .toBuffer();
}

export interface SearchBackend {
  app: FastifyInstance;
  databaseUrl: string;
  dataDir: string;
  call(input: CallInput): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A backend on a given (or new) database and data directory; `close` leaves both for the next one. */
export async function startSearchBackend(options: { databaseUrl: string; dataDir: string; workers?: boolean; env?: Record<string, string> }): Promise<SearchBackend> {
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    INTERNAL_SECRET: TEST_SECRET,
    IRIS_DATA_DIR: options.dataDir,
    IRIS_ALLOW_PRIVATE_URLS: '1',
    IRIS_INFERENCE_THREADS: '1',
    IRIS_DOWNLOAD_CONCURRENCY: '4',
    LOG_LEVEL: 'warn',
    ...options.env,
  });
  const app = await buildApp(config, { workers: options.workers ?? true, logger: process.env.IRIS_TEST_LOG === '1' });
  await app.ready();
  return { app, databaseUrl: options.databaseUrl, dataDir: options.dataDir, call: (input) => callSigned(app, input), close: () => app.close() };
}

/** A fresh database and data directory for a test file, removed by `dispose`. */
export async function searchEnvironment(): Promise<{ databaseUrl: string; dataDir: string; dispose: () => Promise<void> }> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-test-search-'));
  return {
    databaseUrl: database.url,
    dataDir,
    dispose: async () => {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function createImageSet(backend: { call: SearchBackend['call'] }, name = 'set'): Promise<string> {
  const id = newResourceId();
  const res = await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: id, payload: { name } });
  expect(res.statusCode).toBe(200);
  return id;
}

export async function addImagesCsv(backend: { call: SearchBackend['call'] }, setId: string, lines: string[]): Promise<void> {
  const body = multipart({ urls_to_add: { filename: 'urls.csv', content: lines.join('\n'), contentType: 'text/csv' } });
  const res = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, payload: body.payload, headers: body.headers });
  expect(res.statusCode).toBe(200);
}

export async function createService(backend: { call: SearchBackend['call'] }, setId: string, fields: Record<string, string> = { name: 'svc', scenario: 'general' }) {
  const id = newResourceId();
  const res = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}/services`, resourceId: id, payload: fields });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; n_indexed: number };
}

/** Polls until `done` holds (see support/wait-for.ts); 90 s unless told otherwise. */
export function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 90_000): Promise<T> {
  return waitUntil(probe, done, timeoutMs);
}

/** Waits until the service has indexed `n` images, both passes (docs/search.md, "Two passes"). */
export async function waitIndexed(backend: { call: SearchBackend['call'] }, serviceId: string, n: number, timeoutMs?: number) {
  return waitFor(
    async () =>
      (await backend.call({ method: 'GET', url: `/customer_services/_0000172/${serviceId}` })).json() as {
        n_indexed: number;
        n_first_pass_only: number;
        indexed_ratio: number;
        last_indexed_time: string | null;
      },
    (s) => s.n_indexed === n && s.n_first_pass_only === 0,
    timeoutMs,
  );
}

export interface SearchResponse {
  is_err: number;
  results: { metadata: string; score: number; url: string; tags: string; product_id?: string; price?: string; keywords?: string }[];
  loc: number[];
  [key: string]: unknown;
}

/** POST /search (or /product_search) with an uploaded image and text fields, as multipart. */
export async function searchUpload(
  backend: { call: SearchBackend['call'] },
  serviceId: string,
  image: Buffer,
  fields: Record<string, string> = {},
  path = 'search',
): Promise<LightMyRequestResponse> {
  const body = multipart({ ...fields, search: { filename: 'q.jpg', content: image, contentType: 'image/jpeg' } });
  return backend.call({ method: 'POST', url: `/${path}/${serviceId}`, payload: body.payload, headers: body.headers });
}

/**
 * The `iris` command against the whole platform: sets, downloads with failures, a search service, a
 * search and detection with --draw, the service's self-evaluation followed with --wait, a batch task written to results.jsonl, --json and --lang zh.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSetResponse, SearchEvaluation, SearchServiceResponse } from '@iris/shared';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import type { PlatformFixture } from './platform-fixture.js';
import { sharedPlatformFixture } from './shared-platform.js';

const BIN = path.resolve(import.meta.dirname, '../../scripts/iris.mjs');
let platform: PlatformFixture;
let images: http.Server;
let imageBase: string;
let work: string;

function iris(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, IRIS_URL_ROOT: platform.edgeUrl, IRIS_ACCESS_KEY_ID: platform.devAccount.key_id, IRIS_PROFILE: path.join(work, 'none.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'iris-cli-'));
  const files = new Map<string, Buffer>();
  for (let i = 0; i < 6; i++) files.set(`/p${i}.jpg`, await photoJpeg(320, 240, i + 1));
  files.set('/broken.jpg', Buffer.from('not an image'));
  images = http.createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) res.writeHead(404).end('no');
    else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(body);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  writeFileSync(path.join(work, 'query.jpg'), files.get('/p1.jpg')!);
  platform = await sharedPlatformFixture('cli');
});
afterAll(async () => {
  await platform?.stop();
  await new Promise((resolve) => images?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

describe('iris (data commands)', () => {
  let setId: string;

  it('creates a set, uploads a CSV with live download progress, lists it', async () => {
    const created = await iris('sets', 'create', 'cli-set', '--json');
    expect(created.code, created.stderr).toBe(0);
    setId = DataSetResponse.parse(JSON.parse(created.stdout)).id;
    const csv = path.join(work, 'urls.csv');
    writeFileSync(csv, [...Array(6).keys()].map((i) => `${imageBase}/p${i}.jpg,photo ${i},t${i % 2}`).concat(`${imageBase}/broken.jpg`, `${imageBase}/gone.jpg`).join('\n'));
    const added = await iris('sets', 'add', setId, csv, '--timeout-seconds', '120');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`${setId}: 6 downloaded, 2 failed, 8 images`);
    const listed = await iris('sets', 'ls');
    expect(listed.stdout).toMatch(new RegExp(`${setId}\\s+cli-set\\s+downloaded\\s+6/8 \\(2 failed\\)`));
    // Why they failed: the failed records with their reason (last_error), read through the typed client.
    const failures = await iris('sets', 'failures', setId, '--json');
    expect(failures.code, failures.stderr).toBe(0);
    const failed = JSON.parse(failures.stdout) as { url: string; status: string; last_error: string }[];
    expect(failed.map((r) => r.url).sort()).toEqual([`${imageBase}/broken.jpg`, `${imageBase}/gone.jpg`]);
    for (const record of failed) expect(record.last_error, record.url).toMatch(/\S/);
    const text = await iris('sets', 'failures', setId);
    expect(text.stdout).toContain(`${imageBase}/gone.jpg`);
    expect((await iris('sets', 'failures', setId, '--kind', 'nonsense')).code).toBe(2);
  });

  it('builds a search service, watches indexing, searches and draws the query region', async () => {
    const created = await iris('services', 'create', setId, '--name', 'cli', '--scenario', 'general', '--json');
    expect(created.code, created.stderr).toBe(0);
    const service = SearchServiceResponse.parse(JSON.parse(created.stdout));
    const status = await iris('services', 'status', service.id, '--watch', '--timeout-seconds', '180');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('6 indexed (100%)');
    const out = path.join(work, 'search.png');
    const found = await iris('search', service.id, path.join(work, 'query.jpg'), '--count', '3', '--draw', out);
    expect(found.code, found.stderr).toBe(0);
    const lines = found.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(`${imageBase}/p1.jpg`);
    expect((await sharp(out).metadata()).width).toBe(320);

    // The service measures itself: --wait follows the background evaluation to its report.
    const evaluated = await iris('evaluate', service.id, '--sample-size', '2', '--edits', 'crop50,grey', '--wait', '--timeout-seconds', '240');
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout).toContain(`${service.id}: done 4/4`);
    expect(evaluated.stdout).toMatch(/^crop50\s+2\s+[\d.]+\s+[\d.]+$/m);
    expect(evaluated.stdout).toMatch(/^grey\s+2\s+[\d.]+\s+[\d.]+$/m);
    expect(evaluated.stdout).toMatch(/^overall\s+4\s+[\d.]+\s+1\.000$/m);
    expect(evaluated.stdout).toMatch(/latency p50 [\d.]+ ms/);
    const report = SearchEvaluation.parse(JSON.parse((await iris('evaluate', service.id, '--status', '--json')).stdout));
    expect(report.state).toBe('done');
    expect(report.report?.per_edit.map((e) => e.edit)).toEqual(['crop50', 'grey']);
  }, 420_000);

  it('detects with --draw and speaks Chinese with --lang zh', async () => {
    const out = path.join(work, 'detect.png');
    const detected = await iris('detect', '_0000059', `${imageBase}/p2.jpg`, '--draw', out, '--json');
    expect(detected.code, detected.stderr).toBe(0);
    expect(JSON.parse(detected.stdout)).toHaveProperty('boxes_detected');
    expect((await sharp(out).metadata()).format).toBe('png');
    const colour = await iris('color', '_0000072', `${imageBase}/p3.jpg`, '--lang', 'zh');
    expect(colour.code, colour.stderr).toBe(0);
    expect(colour.stdout).toMatch(/^#[0-9a-f]{6}\s+[\d.]+%\s+\S*[\u4e00-\u9fff]/im);
  });

  it('runs a batch task to the end and writes its results', async () => {
    const urls = path.join(work, 'urls.txt');
    writeFileSync(urls, [0, 1, 2].map((i) => `${imageBase}/p${i}.jpg`).join('\n'));
    const out = path.join(work, 'results.jsonl');
    const run = await iris('batch', 'run', '_0000072', urls, '--wait', '--out', out, '--timeout-seconds', '180');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/SUCCESS, 3\/3/);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('reports an API refusal with its code and exit status 1', async () => {
    const missing = await iris('services', 'status', 'doesnotexist0000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/answered 404.*\(2002\)/);
  });
});

/**
 * The installable CLI: packed from cli/ (`npm pack`), installed from the tarball into an empty prefix with no
 * registry (`npm install -g --prefix --offline`), run outside the repository against the whole platform:
 * `iris --version`, per-command help, `iris login` (config file of mode 600), `iris sets upload DIR` with its
 * progress bar twice (the second run skips what is stored), and signed requests (multipart and JSON, `iris api`)
 * with a key that requires them.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSetResponse } from '@iris/shared';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import type { PlatformFixture } from './platform-fixture.js';
import { sharedPlatformFixture } from './shared-platform.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'cli/package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

let platform: PlatformFixture;
let work: string;
let iris: (args: string[], extra?: { env?: NodeJS.ProcessEnv; input?: string }) => Promise<Run>;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'iris-cli-install-'));
  const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  const packed = await run('npm', ['pack', '-w', 'cli', '--pack-destination', work], { cwd: ROOT, env: npmEnv });
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = path.join(work, readdirSync(work).find((f) => f.endsWith('.tgz'))!);
  const prefix = path.join(work, 'prefix');
  const installed = await run('npm', ['install', '-g', '--prefix', prefix, '--offline', tarball], { cwd: work, env: npmEnv });
  expect(installed.code, installed.stderr).toBe(0);
  const bin = path.join(prefix, 'bin', 'iris');
  const home = path.join(work, 'home');
  mkdirSync(home);
  // Outside the repository, with nothing of it on the path: only node and the installed package.
  const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
  iris = (args, extra = {}) => run(bin, args, { cwd: work, env: { ...env, ...extra.env }, ...(extra.input === undefined ? {} : { input: extra.input }) });

  const pictures = path.join(work, 'pictures');
  mkdirSync(path.join(pictures, 'trip'), { recursive: true });
  writeFileSync(path.join(pictures, 'a.jpg'), await photoJpeg(320, 240, 1));
  writeFileSync(path.join(pictures, 'b.png'), await sharp(await photoJpeg(200, 300, 2)).png().toBuffer());
  writeFileSync(path.join(pictures, 'trip', 'c.jpg'), await photoJpeg(300, 300, 3));
  writeFileSync(path.join(pictures, 'trip', 'd.jpeg'), await photoJpeg(240, 320, 4));
  writeFileSync(path.join(pictures, 'notes.txt'), 'not a picture, not uploaded');
  platform = await sharedPlatformFixture('cli-install');
});
afterAll(async () => {
  await platform?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the installed iris', () => {
  let setId: string;

  it('prints its version and the help of one command', async () => {
    const version = await iris(['--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(VERSION);
    const help = await iris(['sets', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('iris sets upload <image_set_id> <dir>');
    expect(help.stdout).not.toContain('iris batch run');
    expect((await iris(['sets', 'ls', '--no-such-option'])).code).toBe(2);
  });

  it('logs in (a config file readable by its owner only) and uploads a folder twice: the second run skips what is stored', async () => {
    const login = await iris(['login', '--url', platform.edgeUrl, '--key', platform.devAccount.key_id]);
    expect(login.code, login.stderr).toBe(0);
    const config = path.join(work, 'home', '.config', 'iris', 'config.json');
    expect(statSync(config).mode & 0o777).toBe(0o600);

    const created = await iris(['sets', 'create', 'from-files', '--json']);
    expect(created.code, created.stderr).toBe(0);
    setId = DataSetResponse.parse(JSON.parse(created.stdout)).id;

    const first = await iris(['sets', 'upload', setId, 'pictures', '--concurrency', '2', '--tags', 'cli']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${setId}: 4 uploaded, 0 already stored, 0 failed (4 pictures)`);
    expect(first.stderr).toMatch(/uploading \[.*\] 4\/4/);

    const page = await platform.api.call('listSetRecords', { params: { kind: 'image_sets', id: setId }, query: { count: 100 } });
    expect(page).toMatchObject({ n_items: 4, n_downloaded: 4 });
    const names = page.results.map((r) => r.url.replace(/^.*\/iris\/files\/[0-9a-f]{64}\//, '')).sort();
    expect(names).toEqual(['a.jpg', 'b.png', 'trip/c.jpg', 'trip/d.jpeg']);
    for (const record of page.results) expect(record.url.startsWith(`${platform.edgeUrl}/iris/files/`), record.url).toBe(true);

    const second = await iris(['sets', 'upload', setId, 'pictures']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`${setId}: 0 uploaded, 4 already stored, 0 failed (4 pictures)`);
    expect((await platform.api.call('getImageSet', { params: { image_set_id: setId } })).n_items).toBe(4);
  });

  it('signs its requests with the secret given at login, as a key that requires signatures needs', async () => {
    const secret = 'cli-install-secret-0123456789';
    const key = await platform.admin('POST', `/admin/accounts/${platform.devAccount.account_id}/keys`, { secret, signature_required: true });
    const keyId = String(key.key_id);
    const unsigned = await iris(['sets', 'ls', '--key', keyId]);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toContain('1104');

    const login = await iris(['login', '--url', platform.edgeUrl, '--key', keyId, '--secret-stdin'], { input: `${secret}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('requests signed');

    const more = path.join(work, 'more');
    mkdirSync(more);
    writeFileSync(path.join(more, 'e.jpg'), await photoJpeg(256, 256, 5));
    writeFileSync(path.join(more, 'broken.jpg'), Buffer.from('this is not a picture'));
    const upload = await iris(['sets', 'upload', setId, more]);
    // The broken file is refused (400/5001, signed multipart through the edge); the picture is stored.
    expect(upload.code, upload.stderr).toBe(1);
    expect(upload.stdout).toContain(`${setId}: 1 uploaded, 0 already stored, 1 failed (2 pictures)`);
    expect(upload.stdout).toMatch(/broken\.jpg: .*5001/);
    const listed = await iris(['sets', 'show', setId, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(DataSetResponse.parse(JSON.parse(listed.stdout)).n_items).toBe(5);
    // Any operation by its id, its JSON body signed too.
    const sha256 = createHash('sha256').update(readFileSync(path.join(more, 'e.jpg'))).digest('hex');
    const lookup = await iris(['api', 'lookupSetFiles', '--param', 'kind=image_sets', '--param', `id=${setId}`, '--body', JSON.stringify({ files: [{ name: 'e.jpg', sha256 }] })]);
    expect(lookup.code, lookup.stderr).toBe(0);
    expect(JSON.parse(lookup.stdout).results).toEqual([{ name: 'e.jpg', sha256, url: `${platform.edgeUrl}/iris/files/${sha256}/e.jpg`, status: 'downloaded' }]);
  });
});

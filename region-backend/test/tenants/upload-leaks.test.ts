/**
 * Every way an upload can end gives back what it took: a client that drops its connection mid-part, a body
 * refused midway (longer than the edge signed) or at its end (other than the signed one), or cut off for taking
 * longer than IRIS_REQUEST_TIMEOUT_SECONDS leave no open descriptor in the backend process, no byte in its temp
 * folder and no upload slot taken. Measured on a real backend process, from /proc/<pid>/fd and the temp folder.
 */
import { readdirSync, readlinkSync, statSync, type Dirent } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, newResourceId, signInternal } from '@iris/shared';
import { CHILD_SECRET, type ChildBackend } from '../data-sets/child-backend.js';
import { startCrashHarness, type CrashHarness } from '../support/crash-harness.js';
import { waitUntil } from '../support/wait-for.js';

const PART_BYTES = 12 * 1024 * 1024;
const URL_PATH = '/detect/_0000049';

describe.skipIf(process.platform !== 'linux')('uploads that end early, against a backend process', () => {
  let harness: CrashHarness;
  let backend: ChildBackend;
  let tmpDir: string;
  beforeAll(async () => {
    harness = await startCrashHarness('upload-leaks');
    backend = await harness.startBackend({ IRIS_ACCOUNT_UPLOADS: '2' });
    tmpDir = path.join(harness.dataDir, 'regions', 'cn-east', 'tmp');
  }, 120_000);
  afterAll(() => harness?.close());

  /** Descriptors of the process open on files in its temp folder (deleted ones included). */
  const openTempFiles = (of = backend) => {
    const dir = `/proc/${of.process.pid}/fd`;
    let count = 0;
    for (const fd of readdirSync(dir)) {
      try {
        if (readlinkSync(path.join(dir, fd)).startsWith(tmpDir)) count++;
      } catch {
        // closed meanwhile
      }
    }
    return count;
  };
  // The backend removes an upload's folder while this walks it: a folder or file gone by the time it is read
  // holds nothing (the temp root itself must exist).
  const tempBytes = (dir = tmpDir): number => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if (dir !== tmpDir && (err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    return entries.reduce((sum, entry) => {
      const full = path.join(dir, entry.name);
      return sum + (entry.isDirectory() ? tempBytes(full) : (statSync(full, { throwIfNoEntry: false })?.size ?? 0));
    }, 0);
  };

  const head = (boundary: string) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`);
  const tail = (boundary: string) => Buffer.from(`\r\n--${boundary}--\r\n`);

  /**
   * Sends a multipart upload of one PART_BYTES part over a raw socket: `sendBytes` of the body (then the
   * socket is destroyed when `drop`), signed as `signed` (a shorter length, or other bytes of its length).
   */
  async function upload(options: { to?: ChildBackend; accountId: number; sendBytes?: number; drop?: boolean; signed?: { length: number } | 'other bytes' }): Promise<string> {
    const boundary = `----iris${newResourceId(12)}`;
    const body = Buffer.concat([head(boundary), Buffer.alloc(PART_BYTES, 0x61), tail(boundary)]);
    const sent = body.subarray(0, options.sendBytes ?? body.length);
    const headers = await signInternal(CHILD_SECRET, {
      method: 'POST',
      pathWithQuery: URL_PATH,
      accountId: options.accountId,
      body: options.signed === 'other bytes' ? Buffer.alloc(body.length, 0x62) : (options.signed ?? body),
      context: { requestId: newResourceId(16), lang: 'en', quotas: { ...DEFAULT_QUOTAS }, services: ['_0000049'] },
    });
    const target = options.to ?? backend;
    const socket = net.connect(Number(new URL(target.base).port), '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', () => {});
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    const lines = [`POST ${URL_PATH} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', `Content-Type: multipart/form-data; boundary=${boundary}`, `Content-Length: ${body.length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    await new Promise<void>((resolve) => socket.write(sent, () => resolve()));
    if (options.drop) {
      // Dropped once the backend holds part of it on disk: its temp folder is not empty.
      await waitUntil(async () => tempBytes(), (bytes) => bytes > 0, 60_000).catch(() => {});
      socket.destroy();
    }
    return answer;
  }

  const expectNothingLeft = async () => {
    await waitUntil(async () => ({ fds: openTempFiles(), bytes: tempBytes() }), (left) => left.fds === 0 && left.bytes === 0, 30_000);
  };

  it('a client dropping its connection mid-part leaves no descriptor, no temp byte and no upload slot', async () => {
    for (let i = 0; i < 4; i++) await upload({ accountId: 71, sendBytes: PART_BYTES / 2, drop: true });
    await expectNothingLeft();
    // The account's two upload slots are free again: a whole upload is answered, not refused as busy.
    const whole = await upload({ accountId: 71 });
    expect(whole).toMatch(/^HTTP\/1\.1 (200|400)/);
    await expectNothingLeft();
  }, 120_000);

  it('a body longer than signed (refused midway) or other than signed (refused at its end) leaves nothing', async () => {
    for (let i = 0; i < 3; i++) {
      // Refused while the client is still sending: the backend answers and closes with the rest of the body
      // unread, so the kernel resets the connection, and a client whose write fails on that reset may close
      // before it reads the answer (the edge never sends more than it signed).
      const longer = await upload({ accountId: 72, signed: { length: PART_BYTES / 2 } });
      expect(longer).toMatch(/^(HTTP\/1\.1 401|$)/);
      const other = await upload({ accountId: 72, signed: 'other bytes' });
      expect(other).toMatch(/^HTTP\/1\.1 401/);
    }
    await expectNothingLeft();
    expect(await upload({ accountId: 72 })).toMatch(/^HTTP\/1\.1 (200|400)/);
    await expectNothingLeft();
  }, 120_000);

  it('a body that stops arriving is cut off after IRIS_REQUEST_TIMEOUT_SECONDS, leaving nothing', async () => {
    const slow = await harness.startBackend({ IRIS_ACCOUNT_UPLOADS: '1', IRIS_REQUEST_TIMEOUT_SECONDS: '2' });
    // Half the body, then silence: the backend closes the connection itself.
    const answer = await upload({ to: slow, accountId: 73, sendBytes: PART_BYTES / 2 });
    expect(answer).toMatch(/^(HTTP\/1\.1 408|$)/);
    await waitUntil(async () => ({ fds: openTempFiles(slow), bytes: tempBytes() }), (left) => left.fds === 0 && left.bytes === 0, 30_000);
    // Its one upload slot is free again.
    expect(await upload({ to: slow, accountId: 73 })).toMatch(/^HTTP\/1\.1 (200|400)/);
  }, 120_000);
});

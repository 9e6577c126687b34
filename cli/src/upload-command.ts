/**
 * `iris sets upload <image_set_id> <dir>` and `iris products upload <product_set_id> <dir>`: every picture
 * under the folder is added from its file (`/iris/.../files`), a few at once, with a progress bar. Resumable:
 * the files are hashed first and the set is asked which it holds already (same name, same bytes), so a
 * second run uploads only what is missing. Names are paths relative to the folder (`2024/beach.jpg`).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import { ApiCallError, type IrisClient } from './client.js';
import { LOOKUP_FILES } from './shared.js';

export const PICTURE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.gif', '.bmp', '.tif', '.tiff']);
/** Attempts per file when the platform is busy or unreachable (429, 5xx but 500, network errors). */
const ATTEMPTS = 4;

export interface UploadOptions {
  kind: 'image_sets' | 'product_sets';
  setId: string;
  dir: string;
  concurrency: number;
  meta?: string;
  tags?: string;
  /** Draw the progress bar (on stderr; plain lines when it is not a terminal). */
  progress: boolean;
}

export interface UploadReport {
  files: number;
  uploaded: number;
  skipped: number;
  failed: { name: string; error: string }[];
}

interface Picture {
  name: string;
  file: string;
  sha256?: string;
}

/** Every picture file under `dir` (by extension), with its name relative to it (`/`-separated), sorted by name. */
export async function listPictures(dir: string): Promise<Picture[]> {
  const found: Picture[] = [];
  const walk = async (folder: string, prefix: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const name = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path.join(folder, entry.name), name);
      else if (entry.isFile() && PICTURE_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) found.push({ name, file: path.join(folder, entry.name) });
    }
  };
  await walk(dir, '');
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A product's id from its picture's name: the first folder (`sku-1/front.jpg`), else the file name without extension. */
export function productIdOf(name: string): string {
  const slash = name.indexOf('/');
  return slash > 0 ? name.slice(0, slash) : path.basename(name, path.extname(name));
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function eachLimited<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}

const transient = (err: unknown) =>
  (err instanceof ApiCallError && (err.status === 429 || (err.status > 500 && err.status < 600))) || (err instanceof TypeError && err.message === 'fetch failed');

export async function uploadFolder(client: IrisClient, options: UploadOptions): Promise<UploadReport> {
  const pictures = await listPictures(options.dir);
  const report: UploadReport = { files: pictures.length, uploaded: 0, skipped: 0, failed: [] };
  const tty = Boolean(process.stderr.isTTY);
  const bar = new cliProgress.SingleBar(
    {
      format: 'uploading [{bar}] {value}/{total} | {uploaded} uploaded, {skipped} already stored, {failed} failed | ETA {eta_formatted}',
      stream: process.stderr,
      hideCursor: tty,
      noTTYOutput: !tty,
      notTTYSchedule: 1000,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  const counts = () => ({ uploaded: report.uploaded, skipped: report.skipped, failed: report.failed.length });
  if (options.progress) bar.start(pictures.length, 0, counts());
  const tick = () => {
    if (options.progress) bar.increment(1, counts());
  };
  try {
    // A file that cannot be read (gone since the listing, no permission) is reported, not fatal.
    const unreadable = (p: Picture, err: unknown) => {
      report.failed.push({ name: p.name, error: (err as Error).message });
      tick();
    };
    await eachLimited(pictures, options.concurrency, async (p) => {
      try {
        p.sha256 = await sha256File(p.file);
      } catch (err) {
        unreadable(p, err);
      }
    });
    const params = { kind: options.kind, id: options.setId };
    const readable = pictures.filter((p) => p.sha256);
    const missing: Picture[] = [];
    for (let i = 0; i < readable.length; i += LOOKUP_FILES) {
      const chunk = readable.slice(i, i + LOOKUP_FILES);
      const found = await client.call('lookupSetFiles', { params, json: { files: chunk.map((p) => ({ name: p.name, sha256: p.sha256! })) } });
      chunk.forEach((p, j) => {
        const status = found.results[j]?.status;
        // A stored or pending record is kept; a failed one (it cannot be, for an upload) is sent again.
        if (status === 'downloaded' || status === 'pending') {
          report.skipped++;
          tick();
        } else missing.push(p);
      });
    }
    await eachLimited(missing, options.concurrency, async (p) => {
      const fields = {
        name: p.name,
        meta: options.meta,
        tags: options.tags,
        ...(options.kind === 'product_sets' ? { product_id: productIdOf(p.name) } : {}),
      };
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await client.call('uploadSetFile', { params, multipart: { fields, files: { file: { path: p.file, name: path.basename(p.name) } } } });
          if (answer.stored) report.uploaded++;
          else report.skipped++;
          break;
        } catch (err) {
          if (transient(err) && attempt < ATTEMPTS) {
            await sleep(500 * 2 ** attempt);
            continue;
          }
          if (err instanceof ApiCallError || typeof (err as { code?: unknown }).code === 'string') {
            report.failed.push({ name: p.name, error: (err as Error).message });
            break;
          }
          throw err;
        }
      }
      tick();
    });
  } finally {
    if (options.progress) bar.stop();
  }
  return report;
}

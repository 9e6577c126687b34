/**
 * The latest error lines of a finished batch task, read from the ends of its result files (the task's lines
 * are deleted once the files are written): newest file first, at most TAIL_BYTES of each and `window` lines
 * in all, so the cost does not grow with the task.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';

/** Bytes read from the end of each result file, at most. */
const TAIL_BYTES = 4 * 1024 * 1024;

/** An error line as the batch worker writes it: `{"url":…,"line":n,"error":{…}}` (a result line has "result" there). */
export const ERROR_LINE = /^\{"url":"(?:[^"\\]|\\.)*","line":\d+,"error":/;

export interface ErrorLine {
  line: number;
  url: string;
  error: { error_code?: number; message?: string };
}

async function tail(file: string): Promise<string[]> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n').filter((l) => l !== '');
    // Reading from the middle of a file: its first line is cut.
    return start > 0 ? lines.slice(1) : lines;
  } finally {
    await handle.close();
  }
}

export async function resultFileFailures(dir: string, files: readonly string[], max: number, window: number): Promise<ErrorLine[]> {
  const found: ErrorLine[] = [];
  let seen = 0;
  for (const name of [...files].reverse()) {
    const lines = await tail(path.join(dir, path.basename(name)));
    for (let i = lines.length - 1; i >= 0; i--) {
      if (found.length >= max || seen >= window) return found;
      seen++;
      if (!ERROR_LINE.test(lines[i]!)) continue;
      try {
        found.push(JSON.parse(lines[i]!) as ErrorLine);
      } catch {
        // A line cut by a crash while the file was written: not a failure of the task's.
      }
    }
  }
  return found;
}

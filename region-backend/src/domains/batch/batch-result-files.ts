/**
 * Writes a finished task's result files: JSON lines in input order, `linesPerFile` lines per file
 * (`results-0001.jsonl`, `results-0002.jsonl`, …). Each file is written under a temporary name and renamed,
 * so a file that exists is complete, and writing again (after a crash before the task was marked SUCCESS)
 * produces the same files. Files and the folder are fsynced before this returns: the caller then commits
 * SUCCESS and deletes the per-URL outputs from PostgreSQL, which must never leave empty files behind.
 */
import { mkdir, rename } from 'node:fs/promises';
import { fsyncDirectory, fsyncFile } from '../../util/durable-files.js';
import { FileSink } from '../../util/file-sink.js';
import path from 'node:path';
import type { Queryable } from '../data-sets/set.repo.js';
import { readOutputs } from './batch-item.repo.js';
import { resultFileName } from './batch-links.js';

const PAGE = 1000;

export async function writeResultFiles(db: Queryable, taskId: string, dir: string, linesPerFile: number): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  let out: FileSink | null = null;
  let inFile = 0;
  let after = -1;

  const close = async () => {
    if (!out) return;
    const sink = out;
    out = null;
    await sink.end();
    const name = files[files.length - 1]!;
    await fsyncFile(path.join(dir, `${name}.tmp`));
    await rename(path.join(dir, `${name}.tmp`), path.join(dir, name));
  };

  try {
    for (;;) {
      const rows = await readOutputs(db, taskId, after, PAGE);
      if (!rows.length) break;
      for (const row of rows) {
        if (!out || inFile >= linesPerFile) {
          await close();
          files.push(resultFileName(files.length));
          out = new FileSink(path.join(dir, `${files[files.length - 1]}.tmp`));
          inFile = 0;
        }
        await out.write(`${row.output}\n`);
        inFile++;
        after = row.line;
      }
    }
    await close();
  } finally {
    // A failed read or write leaves a `.tmp` file, which the next attempt writes over; never an open one.
    (out as FileSink | null)?.destroy();
  }
  await fsyncDirectory(dir);
  await fsyncDirectory(path.dirname(dir));
  return files;
}

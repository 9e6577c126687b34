/**
 * A model cache of the test file's own (IRIS_MODEL_CACHE_DIR) in a temporary folder, removed after its
 * tests: conversions and int8 models are made afresh there. Call at the top level of a test file; answers
 * the folder's path once `beforeAll` has run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export function temporaryModelCache(prefix: string): () => string {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    process.env.IRIS_MODEL_CACHE_DIR = dir;
  });
  afterAll(() => {
    delete process.env.IRIS_MODEL_CACHE_DIR;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}

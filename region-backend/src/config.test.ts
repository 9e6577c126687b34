import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/iris', INTERNAL_SECRET: 'an-internal-secret-0123', IRIS_DATA_DIR: '/srv/iris', IRIS_REGION: 'ap-southeast' };

describe('shared store and cache directories', () => {
  it('keep the region folder of the data directory by default (the layout of a single-host installation)', () => {
    const config = loadConfig(base);
    const region = path.resolve('/srv/iris/regions/ap-southeast');
    expect([config.sharedDir, config.cacheDir, config.images.blobDir, config.tmpDir]).toEqual([region, region, path.join(region, 'blobs'), path.join(region, 'tmp')]);
    expect(config.uploadDir).toBe(path.join(region, 'tmp', config.instanceId));
  });

  it('put blobs, batch files and uploads in IRIS_SHARED_DIR and indexes in IRIS_CACHE_DIR; IRIS_BLOB_DIR still wins for blobs', () => {
    const config = loadConfig({ ...base, IRIS_SHARED_DIR: '/mnt/shared', IRIS_CACHE_DIR: '/var/cache/iris' });
    expect([config.sharedDir, config.cacheDir, config.images.blobDir, config.tmpDir]).toEqual(['/mnt/shared', '/var/cache/iris', '/mnt/shared/blobs', '/mnt/shared/tmp']);
    expect(loadConfig({ ...base, IRIS_SHARED_DIR: '/mnt/shared', IRIS_BLOB_DIR: '/mnt/blobs' }).images.blobDir).toBe('/mnt/blobs');
  });

  it('gives every process a new instance id, and refuses an empty directory', () => {
    expect(loadConfig(base).instanceId).not.toBe(loadConfig(base).instanceId);
    expect(() => loadConfig({ ...base, IRIS_SHARED_DIR: '' })).toThrow(/IRIS_SHARED_DIR/);
    expect(() => loadConfig({ ...base, IRIS_CACHE_DIR: '' })).toThrow(/IRIS_CACHE_DIR/);
  });
});

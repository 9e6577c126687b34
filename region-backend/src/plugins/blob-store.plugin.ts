import fp from 'fastify-plugin';
import { FileSystemBlobStore, type BlobStore } from '../images/blob-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    blobs: BlobStore;
  }
}

/** The region's blob store (downloaded images, normalised): `<shared dir>/blobs` unless IRIS_BLOB_DIR says otherwise. */
export const blobStorePlugin = fp(
  async (app) => {
    const { blobDir } = app.config.images;
    const store = new FileSystemBlobStore(blobDir);
    app.decorate('blobs', store);
    app.addHook('onReady', async () => {
      await store.sweepTemporary().catch((err: unknown) => app.log.warn({ err }, 'sweeping temporary blob files failed'));
    });
  },
  { name: 'blob-store' },
);

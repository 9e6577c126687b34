import fp from 'fastify-plugin';
import { FileSystemBlobStore, type BlobStore } from '../images/blob-store.js';
import { RecentPixels } from '../images/recent-pixels.js';

declare module 'fastify' {
  interface FastifyInstance {
    blobs: BlobStore;
    /** Pixels of the pictures this process just stored, for their first embedding. */
    recentPixels: RecentPixels;
  }
}

/** Pixels nobody took within this long are dropped (their set has no service, or it is indexed elsewhere). */
const RECENT_PIXELS_MAX_AGE_MS = 60_000;
/**
 * When the table is full and nothing was taken for this long, older pixels make room for new ones: a set
 * without a service would otherwise shut the next set's pictures out for a minute (a service's first passes
 * take a just-downloaded set's pixels within seconds, so while they take, the oldest are kept for them).
 */
const RECENT_PIXELS_STALE_MS = 5_000;

/** The region's blob store (downloaded images, normalised): `<shared dir>/blobs` unless IRIS_BLOB_DIR says otherwise. */
export const blobStorePlugin = fp(
  async (app) => {
    const { blobDir } = app.config.images;
    const store = new FileSystemBlobStore(blobDir);
    app.decorate('blobs', store);
    app.decorate('recentPixels', new RecentPixels(app.config.images.recentPixelsBytes, RECENT_PIXELS_MAX_AGE_MS, Date.now, RECENT_PIXELS_STALE_MS));
    app.addHook('onReady', async () => {
      await store.sweepTemporary().catch((err: unknown) => app.log.warn({ err }, 'sweeping temporary blob files failed'));
    });
  },
  { name: 'blob-store' },
);

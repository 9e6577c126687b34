import fp from 'fastify-plugin';
import { FileSystemBlobStore, type BlobStore } from '../images/blob-store.js';
import { PixelArena } from '../images/pixel-arena.js';
import { RecentPixels } from '../images/recent-pixels.js';

declare module 'fastify' {
  interface FastifyInstance {
    blobs: BlobStore;
    /** Pixels of the pictures this process just stored, for their first embedding. */
    recentPixels: RecentPixels;
    /** The shared memory `recentPixels` and the search indexer's second-pass table keep their pixels in. */
    pixelArena: PixelArena;
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
/** Room for the slots' rounding to whole blocks and for gaps between slots, beyond the tables' own budgets. */
const ARENA_SLACK = 1.04;

/** The region's blob store (downloaded images, normalised): `<shared dir>/blobs` unless IRIS_BLOB_DIR says otherwise. */
export const blobStorePlugin = fp(
  async (app) => {
    const { blobDir } = app.config.images;
    const store = new FileSystemBlobStore(blobDir);
    app.decorate('blobs', store);
    const arena = new PixelArena(Math.ceil((app.config.images.recentPixelsBytes + app.config.search.secondPassPixelsBytes) * ARENA_SLACK));
    app.decorate('pixelArena', arena);
    app.decorate('recentPixels', new RecentPixels(app.config.images.recentPixelsBytes, RECENT_PIXELS_MAX_AGE_MS, Date.now, RECENT_PIXELS_STALE_MS, arena));
    app.addHook('onReady', async () => {
      await store.sweepTemporary().catch((err: unknown) => app.log.warn({ err }, 'sweeping temporary blob files failed'));
    });
  },
  { name: 'blob-store' },
);

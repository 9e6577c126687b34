import fp from 'fastify-plugin';
import { ImageDecoderPool, type DecoderLimits } from '../inference/image-decoder-pool.js';

declare module 'fastify' {
  interface FastifyInstance {
    decoder: ImageDecoderPool;
  }
}

/** The decode threads every untrusted image goes through (probe, pixel limit, time limit); closed with the app. */
export const decoderPlugin = fp(
  async (app, opts: { threads: number } & DecoderLimits) => {
    const { threads, ...limits } = opts;
    const decoder = new ImageDecoderPool(threads, limits);
    app.decorate('decoder', decoder);
    app.addHook('onClose', async () => {
      await decoder.close();
    });
  },
  { name: 'decoder' },
);

/**
 * Converts the pack's TFJS models to ONNX (and quantises the int8 backbone) once per start, in a worker
 * thread, under a PostgreSQL advisory lock keyed by the model cache's identity (util/cache-identity.ts): the
 * processes that share one cache (on one host or over a network file system) make each model once, the
 * others wait and then only hash-check the files. The lock is a session lock on its own connection, so a
 * holder killed at any moment releases it with its connection. A request that comes first converts what it
 * needs itself (the files are written whole, so two makers never harm each other).
 */
import fp from 'fastify-plugin';
import { cacheIdentity } from '../util/cache-identity.js';
import { modelCacheDir } from '../vision/runtime/converted-model.js';

const LOCK_NAMESPACE = 7_301_201; // arbitrary, constant: the model-cache lock
const LOCK_RETRY_MS = 1000;

export const modelCachePlugin = fp(
  async (app) => {
    let closing = false;
    const prepare = async () => {
      const cacheId = await cacheIdentity(modelCacheDir());
      const client = await app.db.pool.connect();
      let broken = false;
      try {
        // Tried now and then rather than waited for, so a closing process never hangs on it.
        while (!(await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_NAMESPACE, cacheId])).rows[0]!.ok) {
          if (closing) return;
          await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
        }
        if (closing) {
          broken = true; // closing the connection gives the lock back
          return;
        }
        const models = await app.inference.run('prepare-models', undefined, { priority: 'background' });
        app.log.info({ converted: models.filter((m) => m.converted).length, cached: models.filter((m) => !m.converted).length }, 'ONNX model cache ready');
        await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_NAMESPACE, cacheId]);
      } catch (err) {
        broken = true; // a connection in an unknown state (or still holding the lock) is not given back to the pool
        throw err;
      } finally {
        client.release(broken);
      }
    };
    const preparing = prepare().catch((err: unknown) => {
      if (!closing) app.log.error({ err }, 'converting models to ONNX failed');
    });
    app.addHook('onClose', async () => {
      closing = true;
      await preparing;
    });
  },
  { name: 'model-cache', dependencies: ['database', 'inference'] },
);

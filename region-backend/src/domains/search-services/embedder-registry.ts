/**
 * The main thread's view of image embedders: the one this region is configured with (recorded in
 * search_embedders with its model hash and manifest the first time it is used), the pipeline id each scenario
 * maps to under it, and, for any pipeline a service still serves, the embedder that made it (queries of an
 * index being replaced run the model the index was built with).
 */
import type pg from 'pg';
import { BUILTIN_EMBEDDERS, configuredEmbedder, embedderIdOf, refOf, type EmbedderIdentity, type EmbedderRef } from '../../vision/embedding/embedder-identity.js';
import { pipelineOf } from './embedding-pipeline.js';

export class UnknownEmbedderError extends Error {
  constructor(id: string) {
    super(`no image embedder ${id} is recorded in search_embedders`);
    this.name = 'UnknownEmbedderError';
  }
}

export class EmbedderRegistry {
  private readonly known = new Map<string, EmbedderRef>(BUILTIN_EMBEDDERS.map((e) => [e.id, e]));
  private current: Promise<EmbedderRef> | null = null;

  constructor(private readonly pool: pg.Pool) {}

  /** The configured embedder, recorded in PostgreSQL (once per process). */
  configured(): Promise<EmbedderRef> {
    this.current ??= (async () => {
      const embedder = await configuredEmbedder();
      if (embedder.manifestPath) await this.record(embedder as EmbedderIdentity);
      const ref = refOf(embedder);
      this.known.set(ref.id, ref);
      return ref;
    })();
    this.current.catch(() => (this.current = null));
    return this.current;
  }

  /** The pipeline a scenario's services should be built with now. */
  async pipelineOf(scenario: string): Promise<string> {
    return pipelineOf(scenario, await this.configured());
  }

  /** The embedder that made a pipeline's vectors. */
  async embedderOf(pipeline: string): Promise<EmbedderRef> {
    const id = embedderIdOf(pipeline);
    const hit = this.known.get(id);
    if (hit) return hit;
    const result = await this.pool.query<{ manifest_path: string; dim: number }>('SELECT manifest_path, dim FROM search_embedders WHERE id = $1', [id]);
    const row = result.rows[0];
    if (!row) throw new UnknownEmbedderError(id);
    const ref = { id, manifestPath: row.manifest_path, dim: row.dim };
    this.known.set(id, ref);
    return ref;
  }

  private async record(identity: EmbedderIdentity): Promise<void> {
    await this.pool.query(
      `INSERT INTO search_embedders (id, manifest_path, manifest, model_sha256, dim) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET manifest_path = EXCLUDED.manifest_path`,
      [identity.id, identity.manifestPath, JSON.stringify(identity.manifest), identity.modelSha256, identity.dim],
    );
  }
}

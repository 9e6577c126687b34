/**
 * Which image embedder a region uses, and what exactly it is. The default is the built-in pipeline
 * (MobileNetV2-Mid, GeM, whitening: embedding-info.ts); an operator plugs in any ONNX image encoder with a
 * manifest under the `image-embedder` stage of IRIS_MODEL_OVERRIDES (docs/models.md). An embedder's id says
 * what made a vector: for a manifest, its name plus a hash of the model file's bytes and of the manifest, so
 * replacing either gives another id, and search pipelines (and their indexes) built with the old one are
 * rebuilt instead of mixing vectors of two models. No model runtime here: the main thread reads it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { backbonePrecision, INT8_BACKBONE_TAG, type BackbonePrecision } from '../runtime/backbone-precision.js';
import { overridePath, readManifest } from '../runtime/model-config.js';
import type { ModelManifest } from '../runtime/model-manifest.js';
import { EMBEDDING_DIM, EMBEDDING_VERSION } from './embedding-info.js';

export const EMBEDDER_STAGE = 'image-embedder';

/** The `output` of an embedder manifest: how the model's output becomes one vector. */
export const embedderOutputSchema = z.object({
  type: z.literal('embedding'),
  /** Length of the vector (the output's last axis, or its channels for a feature map). */
  dim: z.number().int().min(2).max(4096),
  /**
   * How an output of more than two axes becomes a vector: a feature map ([N, C, H, W] or [N, H, W, C], see
   * `mapLayout`) by `gem`, `gap` or `mac` pooling; a sequence of tokens [N, T, D] (ViT encoders, e.g. DINOv2's
   * last_hidden_state) by its first token (`cls`) or the mean of all (`mean`). `[N, D]` outputs are used as
   * they are. Default: `gem` for maps, `cls` for tokens.
   */
  pooling: z.enum(['gem', 'gap', 'mac', 'cls', 'mean']).optional(),
  mapLayout: z.enum(['nchw', 'nhwc']).default('nchw'),
});

export type EmbedderOutput = z.infer<typeof embedderOutputSchema>;

/** What a worker thread needs to run an embedder (crosses the thread boundary in task payloads). */
export interface EmbedderRef {
  /** Pipelines start with it; `EMBEDDING_VERSION` for the built-in pipeline. */
  id: string;
  /** The manifest of an ONNX embedder; null for the built-in pipeline. */
  manifestPath: string | null;
  dim: number;
}

export interface EmbedderIdentity extends EmbedderRef {
  manifestPath: string;
  manifest: ModelManifest;
  output: EmbedderOutput;
  modelSha256: string;
}

/**
 * The built-in pipeline's id: `EMBEDDING_VERSION`, plus the int8 tag when the backbone runs quantised
 * (IRIS_BACKBONE_PRECISION), so indexes built with the float backbone are rebuilt with the int8 one and back.
 */
export function builtinEmbedderId(precision = backbonePrecision()): string {
  return precision === 'float' ? EMBEDDING_VERSION : `${EMBEDDING_VERSION}.${INT8_BACKBONE_TAG}`;
}

export const BUILTIN_EMBEDDER: EmbedderRef = { id: builtinEmbedderId(), manifestPath: null, dim: EMBEDDING_DIM };

/** Both built-in embedders: an index built with the other precision keeps answering until it is rebuilt. */
export const BUILTIN_EMBEDDERS: readonly EmbedderRef[] = (['int8', 'float'] as const).map((p) => ({ id: builtinEmbedderId(p), manifestPath: null, dim: EMBEDDING_DIM }));

/** The backbone precision of a built-in embedder id (the configured one for anything else). */
export function builtinPrecisionOf(embedder: Pick<EmbedderRef, 'id'> | undefined): BackbonePrecision {
  if (embedder?.id === builtinEmbedderId('float')) return 'float';
  if (embedder?.id === builtinEmbedderId('int8')) return 'int8';
  return backbonePrecision();
}

export class EmbedderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbedderConfigError';
  }
}

function sha256OfFile(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', (err) => reject(new EmbedderConfigError(`image embedder model ${file}: ${err.message}`)))
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Reads an embedder manifest, hashes its model file and answers its identity. */
export async function embedderIdentity(manifestPath: string): Promise<EmbedderIdentity> {
  const manifest = readManifest(manifestPath);
  if (manifest.runtime !== 'onnx') throw new EmbedderConfigError(`image embedder ${manifestPath}: runtime must be "onnx" (export the encoder to ONNX)`);
  const parsed = embedderOutputSchema.safeParse(manifest.output);
  if (!parsed.success) {
    throw new EmbedderConfigError(`image embedder ${manifestPath}: output ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const modelSha256 = await sha256OfFile(manifest.file);
  // The manifest as parsed (defaults filled, file resolved), in a stable key order.
  const canonical = stableJson(manifest);
  const digest = createHash('sha256').update(modelSha256).update('\n').update(canonical).update('\n').update(JSON.stringify(parsed.data)).digest('hex');
  const slug = manifest.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'model';
  return { id: `onnx-${slug}-${parsed.data.dim}d-${digest.slice(0, 16)}`, manifestPath, manifest, output: parsed.data, modelSha256, dim: parsed.data.dim };
}

/** JSON with object keys sorted at every level. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

let configured: Promise<EmbedderRef | EmbedderIdentity> | null = null;

/** The embedder this process is configured with (read once; `resetConfiguredEmbedder` forgets it). */
export function configuredEmbedder(): Promise<EmbedderRef | EmbedderIdentity> {
  configured ??= (async () => {
    const manifestPath = overridePath(EMBEDDER_STAGE);
    return manifestPath ? embedderIdentity(manifestPath) : BUILTIN_EMBEDDER;
  })();
  configured.catch(() => (configured = null));
  return configured;
}

export function resetConfiguredEmbedder(): void {
  configured = null;
}

/** The id of the embedder a pipeline id was built with (pipelines are `<embedder id>/<views hash>`). */
export function embedderIdOf(pipeline: string): string {
  const cut = pipeline.indexOf('/');
  return cut < 0 ? pipeline : pipeline.slice(0, cut);
}

/** Vector length of a pipeline's embeddings (its embedder id carries it). */
export function dimOfPipeline(pipeline: string): number {
  const id = embedderIdOf(pipeline);
  const builtin = BUILTIN_EMBEDDERS.find((e) => e.id === id);
  if (builtin) return builtin.dim;
  const match = /-(\d+)d-[0-9a-f]{16}$/.exec(id);
  if (!match) throw new EmbedderConfigError(`pipeline ${pipeline}: unknown embedder ${id}`);
  return Number(match[1]);
}

/** Just what a worker needs (no manifest object in payloads). */
export function refOf(embedder: EmbedderRef): EmbedderRef {
  return { id: embedder.id, manifestPath: embedder.manifestPath, dim: embedder.dim };
}

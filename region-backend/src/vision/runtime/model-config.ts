/**
 * Which manifest each pipeline stage runs. Defaults ship as `region-backend/models/<stage>.json`; an operator
 * replaces any stage with configuration alone: `IRIS_MODEL_OVERRIDES` names a JSON file
 * `{"<stage>": "/abs/path/to/manifest.json", ...}`. Read once per thread (worker threads resolve manifests
 * themselves, so nothing model-related crosses the thread boundary but the stage name).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelManifestSchema, type ModelManifest } from './model-manifest.js';

const require = createRequire(import.meta.url);

/** Folder of the default manifests shipped with the backend. */
export const DEFAULT_MODELS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../models');

let overrides: Map<string, string> | null = null;
const cache = new Map<string, ModelManifest>();

function loadOverrides(): Map<string, string> {
  if (overrides) return overrides;
  const file = process.env.IRIS_MODEL_OVERRIDES;
  overrides = new Map();
  if (!file) return overrides;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`IRIS_MODEL_OVERRIDES: cannot read ${file}: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`IRIS_MODEL_OVERRIDES: ${file} must hold an object {"<stage>": "<manifest path>"}`);
  }
  for (const [stage, manifestPath] of Object.entries(parsed)) {
    if (typeof manifestPath !== 'string') throw new Error(`IRIS_MODEL_OVERRIDES: stage ${stage} must map to a path`);
    overrides.set(stage, path.resolve(path.dirname(file), manifestPath));
  }
  return overrides;
}

/** Resolves `pkg:<package>/<path>`, an absolute path, or a path relative to the manifest's folder. */
export function resolveModelFile(file: string, manifestDir: string): string {
  if (!file.startsWith('pkg:')) return path.resolve(manifestDir, file);
  const spec = file.slice(4);
  // Scoped packages have one more path segment in their name.
  const cut = spec.startsWith('@') ? spec.indexOf('/', spec.indexOf('/') + 1) : spec.indexOf('/');
  if (cut < 0) throw new Error(`model file ${file}: expected pkg:<package>/<path>`);
  const pkg = spec.slice(0, cut);
  const relative = spec.slice(cut + 1);
  for (const base of require.resolve.paths(pkg) ?? []) {
    const candidate = path.join(base, pkg, relative);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`model file ${file}: ${relative} not found in installed package ${pkg}`);
}

/** Reads and validates a manifest file; `file` comes back as an absolute path. */
export function readManifest(manifestPath: string): ModelManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (err) {
    throw new Error(`model manifest ${manifestPath}: ${(err as Error).message}`);
  }
  const parsed = modelManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`model manifest ${manifestPath} is invalid: ${problems}`);
  }
  const dir = path.dirname(manifestPath);
  const labels = parsed.data.labelsFile ? readLabelsFile(resolveModelFile(parsed.data.labelsFile, dir)) : parsed.data.labels;
  return { ...parsed.data, ...(labels ? { labels } : {}), file: resolveModelFile(parsed.data.file, dir) };
}

/** One label per non-empty line: `name`, or `english<TAB>chinese`; the id is the English name. */
export function readLabelsFile(file: string): { id: string; en: string; zh: string }[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`labels file ${file}: ${(err as Error).message}`);
  }
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (lines.length > 100_000) throw new Error(`labels file ${file}: more than 100000 labels`);
  return lines.map((line) => {
    const [en = '', zh] = line.split('\t').map((p) => p.trim());
    return { id: en, en, zh: zh || en };
  });
}

/** True when the operator configured a manifest for this stage. */
export function hasOverride(stage: string): boolean {
  return loadOverrides().has(stage);
}

/** The manifest file the operator configured for a stage (absolute), or undefined. */
export function overridePath(stage: string): string | undefined {
  return loadOverrides().get(stage);
}

/**
 * The manifest a stage runs: the operator's override, else `models/<stage>.json`, else (when given) the
 * manifest of `fallbackStage` (several services share one default detector but can be swapped one by one).
 */
export function resolveManifest(stage: string, fallbackStage?: string): ModelManifest {
  const key = fallbackStage ? `${stage}>${fallbackStage}` : stage;
  const hit = cache.get(key);
  if (hit) return hit;
  const override = loadOverrides().get(stage);
  const defaultPath = path.join(DEFAULT_MODELS_DIR, `${stage}.json`);
  let manifest: ModelManifest;
  if (override) manifest = readManifest(override);
  else if (existsSync(defaultPath)) manifest = readManifest(defaultPath);
  else if (fallbackStage) manifest = resolveManifest(fallbackStage);
  else throw new Error(`no model manifest for stage ${stage} (expected ${defaultPath} or an IRIS_MODEL_OVERRIDES entry)`);
  cache.set(key, manifest);
  return manifest;
}

/**
 * Reads and validates every manifest IRIS_MODEL_OVERRIDES names (and that their model files exist), so a
 * backend can fail at boot instead of on the first request. Answers the overridden stage names.
 */
export function validateModelOverrides(): string[] {
  const stages = [...loadOverrides().keys()];
  for (const stage of stages) {
    const manifest = resolveManifest(stage);
    if (!existsSync(manifest.file)) throw new Error(`IRIS_MODEL_OVERRIDES: stage ${stage}: model file ${manifest.file} does not exist`);
  }
  return stages;
}

/** Every stage with a manifest: the shipped defaults (`models/<stage>.json`) and the operator's overrides. */
export function manifestStages(): string[] {
  const shipped = readdirSync(DEFAULT_MODELS_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length));
  return [...new Set([...shipped, ...loadOverrides().keys()])].sort();
}

/** Forgets cached overrides and manifests (tests that change IRIS_MODEL_OVERRIDES in one process). */
export function resetModelConfig(): void {
  overrides = null;
  cache.clear();
}

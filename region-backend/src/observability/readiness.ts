/**
 * `/readyz`: may this process take traffic? The database answers, the job queue is running, the inference
 * pool has threads, and every stage's model file (default manifests and overrides) is on disk.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_MODELS_DIR, resolveManifest } from '../vision/runtime/model-config.js';

export interface ReadinessReport {
  ready: boolean;
  region: string;
  /** Iris's version and the commit it was built from (observability/build-info.ts). */
  version: string;
  commit: string;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

async function check(run: () => Promise<string | undefined> | string | undefined): Promise<{ ok: boolean; detail?: string }> {
  try {
    const detail = await run();
    return detail === undefined ? { ok: true } : { ok: true, detail };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

/** Every stage's manifest resolves and names an existing model file (read once; files do not move at run time). */
let modelsChecked: Promise<string> | undefined;
function modelsOnDisk(): Promise<string> {
  modelsChecked ??= Promise.resolve().then(() => {
    const stages = readdirSync(DEFAULT_MODELS_DIR).filter((f) => f.endsWith('.json')).map((f) => path.basename(f, '.json'));
    for (const stage of stages) {
      const manifest = resolveManifest(stage);
      if (!existsSync(manifest.file)) throw new Error(`model of stage ${stage} is missing: ${manifest.file}`);
    }
    return `${stages.length} stages`;
  });
  modelsChecked.catch(() => (modelsChecked = undefined));
  return modelsChecked;
}

export async function readiness(app: FastifyInstance): Promise<ReadinessReport> {
  const checks = {
    database: await check(async () => {
      await app.db.pool.query('SELECT 1');
      return undefined;
    }),
    queue: await check(async () => {
      await app.queue.boss.getQueues();
      return undefined;
    }),
    inference: await check(() => {
      if (app.inference.size < 1) throw new Error('no inference threads');
      const waiting = app.inference.waiting;
      return `${app.inference.size} threads, ${waiting.interactive + waiting.background} tasks waiting`;
    }),
    models: await check(modelsOnDisk),
  };
  return { ready: Object.values(checks).every((c) => c.ok), region: app.config.region, version: app.config.build.version, commit: app.config.build.commit, checks };
}

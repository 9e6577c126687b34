/**
 * Every background job type, registered in one place. Domains export their definitions; `createJobRegistry`
 * refuses duplicates, and the queue plugin refuses to send a job that has no handler.
 */
import type PgBoss from 'pg-boss';

export interface JobDefinition<Data extends object = object> {
  name: string;
  /** Jobs of this type processed at once by one backend process. */
  concurrency: number;
  /** Queue options (retries with back-off, expiry). */
  queue?: Omit<PgBoss.Queue, 'name'>;
  handler: (data: Data, job: PgBoss.Job<Data>) => Promise<void>;
}

export type JobRegistry = ReadonlyMap<string, JobDefinition>;

export function createJobRegistry(definitions: JobDefinition[]): JobRegistry {
  const registry = new Map<string, JobDefinition>();
  for (const def of definitions) {
    if (registry.has(def.name)) throw new Error(`job ${def.name} has two handlers`);
    registry.set(def.name, def);
  }
  return registry;
}

export function defineJob<Data extends object>(def: JobDefinition<Data>): JobDefinition {
  return def as unknown as JobDefinition;
}

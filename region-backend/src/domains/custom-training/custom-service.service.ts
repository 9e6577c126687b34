/** Custom training services: the rules of create, list, get, rename and delete (routes parse, the repositories run SQL). */
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { ApiError, LIMITS, truncateChars, type CreateCustomServiceInput, type RenameCustomServiceInput } from '@iris/shared';
import { findDataSet } from '../data-sets/set.repo.js';
import {
  findCustomService,
  insertCustomService,
  listCustomServices,
  markCustomServiceDeleted,
  renameCustomService,
  type CustomServiceRow,
} from './custom-service.repo.js';
import type { TrainingRunner } from './training-run.js';

/** The only scenario of custom training. */
export const CLASSIFIER_SCENARIO = 'classifier';

/** A service name: trimmed, at most 32 characters, not empty (400/5001). */
export function customServiceName(value: string | undefined): string {
  const name = truncateChars((value ?? '').trim(), LIMITS.productServiceNameChars);
  if (!name) throw new ApiError('invalidData', 'name is required');
  return name;
}

/** `classifier` (any letter case), else 400/2003. */
export function customScenario(value: string | undefined): string {
  const scenario = (value ?? '').trim();
  if (scenario.toLowerCase() === CLASSIFIER_SCENARIO) return CLASSIFIER_SCENARIO;
  throw new ApiError('scenarioUnknown', scenario ? `scenario ${scenario} does not exist; only classifier is accepted` : 'scenario is required; only classifier is accepted');
}

const notFound = (id: string) => new ApiError('serviceNotFound', `service ${id} does not exist`);

export class CustomServiceService {
  constructor(private readonly deps: { pool: pg.Pool; runner: Pick<TrainingRunner, 'enqueue'>; log: FastifyBaseLogger }) {}

  /**
   * Creates the service in `pending` and queues its training (idempotent for the edge-minted id). The answer
   * is read before the run is queued: a worker may pick the run up at once, and creation answers `pending`.
   */
  async create(accountId: number, id: string, trainingSetId: string, fields: CreateCustomServiceInput): Promise<CustomServiceRow> {
    const existing = await findCustomService(this.deps.pool, accountId, id);
    if (existing) return existing;
    if (!(await findDataSet(this.deps.pool, accountId, trainingSetId, 'training_set'))) throw new ApiError('setNotFound', 'training set does not exist');
    customScenario(fields.scenario);
    const name = customServiceName(fields.name);
    const description = truncateChars((fields.description ?? '').trim(), LIMITS.setDescriptionChars);
    await insertCustomService(this.deps.pool, { id, accountId, name, description, trainingSetId });
    const created = await this.get(accountId, id);
    try {
      await this.deps.runner.enqueue(id);
    } catch (err) {
      // The supervisor's next poll queues it instead.
      this.deps.log.warn({ err, serviceId: id }, 'queueing a training run failed');
    }
    return created;
  }

  list(accountId: number): Promise<CustomServiceRow[]> {
    return listCustomServices(this.deps.pool, accountId);
  }

  /** A live service; deleted ones answer 404/2002 like unknown ids (the edge forgets them too). */
  async get(accountId: number, id: string): Promise<CustomServiceRow> {
    const row = await findCustomService(this.deps.pool, accountId, id);
    if (!row || row.status === 'deleted') throw notFound(id);
    return row;
  }

  async rename(accountId: number, id: string, fields: RenameCustomServiceInput): Promise<CustomServiceRow> {
    await this.get(accountId, id);
    const name = customServiceName(fields.name);
    if (!(await renameCustomService(this.deps.pool, accountId, id, name))) throw notFound(id);
    return this.get(accountId, id);
  }

  /** Marks the service deleted (a training run in progress stops at its next step) and returns it as deleted. */
  async delete(accountId: number, id: string): Promise<CustomServiceRow> {
    await this.get(accountId, id);
    if (!(await markCustomServiceDeleted(this.deps.pool, accountId, id))) throw notFound(id);
    const row = await findCustomService(this.deps.pool, accountId, id);
    if (!row) throw notFound(id);
    return row;
  }
}

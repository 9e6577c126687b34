/** Search services: the rules of create, list, get, rename and delete (routes parse, the repository runs SQL). */
import type pg from 'pg';
import { ApiError, LIMITS, isScenario, truncateChars, type CreateSearchServiceInput, type RenameServiceInput } from '@iris/shared';
import { findDataSet, findProductSet } from '../data-sets/index.js';
import type { EmbedderRegistry } from './embedder-registry.js';
import {
  deleteService,
  findService,
  insertService,
  listServices,
  renameService,
  type SearchServiceKind,
  type SearchServiceRow,
} from './search-service.repo.js';
import type { ServiceIndexes } from './service-indexes.js';

/** A service name: trimmed, at most 32 characters, not empty. */
export function serviceName(value: string | undefined): string {
  const name = truncateChars((value ?? '').trim(), LIMITS.productServiceNameChars);
  if (!name) throw new ApiError('invalidData', 'name is required');
  return name;
}

/** A scenario of the catalogue (any letter case), else 400/2003. */
export function serviceScenario(value: string | undefined): string {
  const scenario = (value ?? '').trim().toLowerCase();
  if (!isScenario(scenario)) throw new ApiError('scenarioUnknown', value?.trim() ? `scenario ${value.trim()} does not exist` : 'scenario is required');
  return scenario;
}

const setFull = () => new ApiError('setServiceQuota', 'maximum number of search services on this set reached');

export class SearchServiceService {
  constructor(private readonly deps: { pool: pg.Pool; indexes: ServiceIndexes; embedders: EmbedderRegistry }) {}

  async createOnImageSet(accountId: number, id: string, imageSetId: string, fields: CreateSearchServiceInput, perSetLimit?: number): Promise<SearchServiceRow> {
    const existing = await findService(this.deps.pool, accountId, id);
    if (existing) return existing;
    const name = serviceName(fields.name);
    const scenario = serviceScenario(fields.scenario);
    if (!(await findDataSet(this.deps.pool, accountId, imageSetId, 'image_set'))) throw new ApiError('setNotFound', 'image set does not exist');
    const row = { id, accountId, kind: 'image_set', name, scenario, setId: imageSetId, productSetId: null, pipeline: await this.deps.embedders.pipelineOf(scenario) } as const;
    if (!(await insertService(this.deps.pool, row, perSetLimit))) throw setFull();
    return this.get(accountId, id);
  }

  async createOnProductSet(accountId: number, id: string, productSetId: string, fields: CreateSearchServiceInput, perSetLimit?: number): Promise<SearchServiceRow> {
    const existing = await findService(this.deps.pool, accountId, id);
    if (existing) return existing;
    const name = serviceName(fields.name);
    const scenario = serviceScenario(fields.scenario);
    const set = await findProductSet(this.deps.pool, accountId, productSetId);
    if (!set) throw new ApiError('productSetNotFound', 'product set does not exist');
    const row = { id, accountId, kind: 'product_set', name, scenario, setId: set.image_set_id, productSetId, pipeline: await this.deps.embedders.pipelineOf(scenario) } as const;
    if (!(await insertService(this.deps.pool, row, perSetLimit))) throw setFull();
    return this.get(accountId, id);
  }

  list(accountId: number, kind?: SearchServiceKind): Promise<SearchServiceRow[]> {
    return listServices(this.deps.pool, accountId, kind);
  }

  async get(accountId: number, id: string, kind?: SearchServiceKind): Promise<SearchServiceRow> {
    const row = await findService(this.deps.pool, accountId, id, kind);
    if (!row) throw new ApiError('serviceNotFound', 'search service does not exist');
    return row;
  }

  async rename(accountId: number, id: string, fields: RenameServiceInput, kind?: SearchServiceKind): Promise<SearchServiceRow> {
    const name = serviceName(fields.name);
    if (!(await renameService(this.deps.pool, accountId, id, name, kind))) throw new ApiError('serviceNotFound', 'search service does not exist');
    return this.get(accountId, id, kind);
  }

  async delete(accountId: number, id: string, kind?: SearchServiceKind): Promise<void> {
    if (!(await deleteService(this.deps.pool, accountId, id, kind))) throw new ApiError('serviceNotFound', 'search service does not exist');
    await this.deps.indexes.drop(id, true);
  }
}

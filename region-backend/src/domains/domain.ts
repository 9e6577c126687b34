import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { JobDefinition } from '../jobs/job-registry.js';

/** A domain contributes routes and, optionally, background job types. */
export interface Domain {
  name: string;
  routes: FastifyPluginAsync;
  jobs?: (app: FastifyInstance) => JobDefinition[];
}

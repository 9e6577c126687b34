import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

const trainingSet = { owned: { kind: 'training_set' } } as const;
const customService = { owned: { kind: 'custom_service' } } as const;

/** `/custom_training`: training sets (404/2001), custom services (404/2002) and classifier inference. */
export const customTrainingRoutes = new Hono<AppEnv>()
  .post('/_0000194/training_sets', proxy({ operation: 'createTrainingSet', required: ['name', 'description'], create: { kind: 'training_set', quota: 'trainingSets' } }))
  .all('/_0000194/training_sets', proxy())
  .post('/_0000194/training_sets/:id/services', proxy({ ...trainingSet, create: { kind: 'custom_service', quota: 'customServices' } }))
  .all('/_0000194/training_sets/:id', proxy(trainingSet))
  .all('/_0000194/training_sets/:id/*', proxy(trainingSet))
  .all('/_0000194/services', proxy())
  .all('/_0000194/services/:id', proxy(customService))
  .all('/_0000194/services/:id/*', proxy(customService))
  .all('/_0000194', proxy())
  .all('/_0000194/*', proxy())
  .all('/:id', proxy(customService));

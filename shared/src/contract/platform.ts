/** Endpoints the edge answers itself: the API description and its reference page. */
import { z } from 'zod';
import { op } from './common.js';

export const platformOperations = [
  op({
    id: 'openapi', method: 'get', path: '/openapi.json', servedBy: 'edge', tag: 'Platform', summary: 'This API description (OpenAPI 3.1), generated from the contract', extension: 'iris', errors: 'resource',
    response: z.object({ openapi: z.string() }).passthrough(), public: true,
  }),
  op({
    id: 'docs', method: 'get', path: '/docs', servedBy: 'edge', tag: 'Platform', summary: 'API reference page (HTML)', extension: 'iris', errors: 'resource',
    response: z.string().describe('HTML page'), responseMediaType: 'text/html', public: true,
  }),
];

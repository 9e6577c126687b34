/**
 * The OpenAPI 3.1 document, generated from the contract: every operation, both regions as servers, the
 * access-key header, the three error shapes, and `x-iris-extension` on what the specification does not have.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR, type ErrorFamily } from '../errors.js';
import type { BodyForm, Operation } from './common.js';
import { AnalysisError, BatchError, ResourceError } from './error-shapes.js';
import { ADMIN_OPERATIONS, OPERATIONS } from './index.js';

const MEDIA: Record<BodyForm, string> = { json: 'application/json', form: 'application/x-www-form-urlencoded', multipart: 'multipart/form-data' };
const ERROR_REF: Record<ErrorFamily, string> = { resource: 'ResourceError', analysis: 'AnalysisError', batch: 'BatchError' };

export type OpenApiServer = {
  url: string;
  description: string;
};

export interface OpenApiOptions {
  servers: OpenApiServer[];
  version?: string;
}

/** `status/error_code` of each code the operation declares. */
function errorCodes(operation: Operation): string[] {
  return [...new Set((operation.errorCodes ?? []).map((key) => `${ERROR[key][0]}/${ERROR[key][1]}`))];
}

function errorDescription(operation: Operation): string {
  const codes = errorCodes(operation);
  return `Error (${operation.errors} shape)${codes.length ? `: ${codes.join(', ')}` : ''}`;
}

const versionHeader = (required: boolean) =>
  z.object({
    'x-ca-version': (required ? z.enum(['1', '1.0']) : z.enum(['1', '1.0']).optional()).openapi({
      description: 'API version (the specification documents 1; clients send 1 or 1.0; some delete calls omit it)',
    }),
  });

function routeConfig(operation: Operation, errorSchemas: Record<ErrorFamily, z.ZodTypeAny>): RouteConfig {
  const status = String(operation.status ?? 200);
  const success =
    operation.response === null
      ? { description: 'No content' }
      : { description: 'Success', content: { [operation.responseMediaType ?? 'application/json']: { schema: operation.response } } };
  const responses: RouteConfig['responses'] = {
    [status]: success,
    default: {
      description: errorDescription(operation),
      content: { 'application/json': { schema: errorSchemas[operation.errors] } },
      // Machine-readable list of the codes above (`status/error_code`); colour and fashion answers carry the status alone.
      'x-error-codes': errorCodes(operation),
    } as RouteConfig['responses'][string],
  };
  if (operation.alsoNoContent) responses['204'] = { description: 'No content (the call without a body deletes the set)' };
  const config: RouteConfig & Record<string, unknown> = {
    method: operation.method,
    path: operation.path,
    operationId: operation.id,
    summary: operation.summary,
    tags: [operation.tag],
    request: {
      ...(operation.public || operation.admin ? {} : { headers: versionHeader(operation.method !== 'delete') }),
      ...(operation.params ? { params: operation.params } : {}),
      ...(operation.query ? { query: operation.query } : {}),
      ...(operation.body
        ? {
            body: {
              required: operation.body.required ?? false,
              content: Object.fromEntries(operation.body.forms.map((f) => [MEDIA[f], { schema: operation.body!.schema }])),
            },
          }
        : {}),
    },
    responses,
    ...(operation.public ? { security: [] } : {}),
    ...(operation.admin ? { security: [{ adminToken: [] }] } : {}),
  };
  if (operation.extension) config['x-iris-extension'] = operation.extension === 'iris' ? 'iris' : 'released-clients';
  if (operation.admin) config['x-iris-admin'] = true;
  return config;
}

export function buildOpenApiDocument(options: OpenApiOptions) {
  const registry = new OpenAPIRegistry();
  const errorSchemas = {
    resource: registry.register('ResourceError', ResourceError),
    analysis: registry.register('AnalysisError', AnalysisError),
    batch: registry.register('BatchError', BatchError),
  } satisfies Record<ErrorFamily, z.ZodTypeAny>;
  registry.registerComponent('securitySchemes', 'accessKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-ca-accesskeyid',
    description: 'The account access key id. Send x-ca-version: 1 as well; requests carrying x-ca-signature are verified (see the README).',
  });
  registry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator API (`x-iris-admin`): Authorization: Bearer <ADMIN_TOKEN> of the edge. Without ADMIN_TOKEN the admin API does not exist (404).',
  });
  for (const operation of [...OPERATIONS, ...ADMIN_OPERATIONS]) registry.registerPath(routeConfig(operation, errorSchemas));

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Iris API',
      version: options.version ?? '1',
      description:
        'Self-hosted image intelligence: data sets, search, custom training, ready-made analysis and batch tasks. ' +
        `Operations marked x-iris-extension are not in the interface specification ("released-clients": forms the released client libraries use; "iris": Iris's own); those marked x-iris-admin are the operator API (bearer token). Error shapes: ${Object.values(ERROR_REF).join(', ')}.`,
    },
    servers: options.servers,
    security: [{ accessKey: [] }],
  });
}

/**
 * The contract at the backend's door. Every route gets its schemas from `@iris/shared`'s contract when it
 * is added (start-up fails for a route the contract does not describe): path and query parameters are
 * validated, bodies are read once and parsed into `request.input` (with the operation's own error codes),
 * and answers are checked and serialised through the response schema.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OPERATIONS, parseInput, routeKey, routePattern, serviceById, type Operation } from '@iris/shared';
import { readBody } from './request-body.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route added, as `METHOD /path` (for the contract test: no operation without a route). */
    routeKeys: Set<string>;
  }
  interface FastifyRequest {
    /** The body (and query) parsed by the operation's request schema; read it with `inputOf`. */
    input?: unknown;
  }
}

/** Paths outside the public contract: health and metrics, the edge's internal calls, the operator API. */
const OUTSIDE_CONTRACT = [/^\/(healthz|livez|readyz|metrics)$/, /^\/internal\//, /^\/admin\//];

export function isOutsideContract(url: string): boolean {
  return OUTSIDE_CONTRACT.some((pattern) => pattern.test(url));
}

/** Operations by backend route key; the analysis route serves four operations (told apart by service id). */
const byRoute = new Map<string, Operation[]>();
for (const operation of OPERATIONS.filter((o) => o.servedBy === 'backend')) {
  const key = routeKey(operation.method, routePattern(operation));
  byRoute.set(key, [...(byRoute.get(key) ?? []), operation]);
}

export function operationsForRoute(method: string, url: string): Operation[] {
  return byRoute.get(routeKey(method, url)) ?? [];
}

const ANALYSIS_OPERATION: Record<string, string> = { detect: 'detect', classify: 'classify', color: 'color', dressing: 'dressing' };

function operationOf(operations: Operation[], request: FastifyRequest): Operation | undefined {
  if (operations.length === 1) return operations[0];
  const serviceId = (request.params as { serviceId?: string }).serviceId ?? '';
  const family = serviceById(serviceId)?.family;
  return operations.find((o) => o.id === (family && ANALYSIS_OPERATION[family]));
}

/** The parsed input of the request, typed by the request schema it was parsed with. */
export function inputOf<S extends z.ZodTypeAny>(request: FastifyRequest, _schema: S): z.output<S> {
  if (request.input === undefined) throw new Error(`no parsed input for ${request.method} ${request.url}`);
  return request.input as z.output<S>;
}

const pathParam = z.string().min(1).max(128);

/** The route's own parameter names over the contract's parameter schemas, in path order. */
function paramsSchema(url: string, operation: Operation): z.AnyZodObject | undefined {
  const names = [...url.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]!);
  if (!names.length) return undefined;
  const contract = Object.values(operation.params?.shape ?? {}) as z.ZodTypeAny[];
  const positional = contract.length === names.length;
  return z.object(Object.fromEntries(names.map((name, i) => [name, positional ? contract[i]! : pathParam])));
}

function attachSchemas(route: RouteOptions, operations: Operation[]): void {
  const first = operations[0]!;
  const responses = operations.filter((o) => o.response !== null && !o.responseMediaType);
  const params = paramsSchema(route.url, first);
  route.schema = {
    ...route.schema,
    ...(params ? { params } : {}),
    ...(first.query ? { querystring: first.query.passthrough() } : {}),
    ...(responses.length ? { response: { [first.status ?? 200]: responses.length === 1 ? responses[0]!.response : unionOf(responses) } } : {}),
  };
}

function unionOf(operations: Operation[]): z.ZodTypeAny {
  const schemas = operations.map((o) => o.response!);
  return schemas.slice(1).reduce((acc, schema) => acc.or(schema), schemas[0]!);
}

export function registerContract(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, method, url }) => {
    const operations = operationsForRoute(method, url);
    return (data) => {
      try {
        return { value: parseInput(schema as z.ZodTypeAny, operations[0] ?? { errors: 'resource' }, data) };
      } catch (err) {
        return { error: err as Error };
      }
    };
  });
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('routeKeys', new Set<string>());

  app.addHook('onRoute', (route) => {
    if (isOutsideContract(route.url) || route.method === 'HEAD') return;
    for (const method of [route.method].flat()) {
      app.routeKeys.add(routeKey(method, route.url));
      const operations = operationsForRoute(method, route.url);
      if (!operations.length) throw new Error(`route ${method} ${route.url} is not in the contract (shared/src/contract)`);
      attachSchemas(route, operations);
      const bodySchemas = operations.filter((o) => o.body);
      if (!bodySchemas.length) continue;
      const parseBody = async function parseContractBody(request: FastifyRequest) {
        const operation = operationOf(operations, request);
        if (!operation?.body) return;
        const body = await readBody(request, { tmpDir: app.config.uploadDir });
        const values: Record<string, unknown> = { ...body.fields };
        for (const file of body.files) values[file.field] = file;
        request.input = parseInput(operation.body.schema, operation, values);
      };
      route.preHandler = [parseBody, ...[route.preHandler ?? []].flat()];
    }
  });
}

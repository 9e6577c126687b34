/**
 * The route builder: `app.post('/search/:service_id', serve(searchOp, async ({ input, params, ctx }) => …))`.
 * The operation is bound by value: its path and query parameters are validated by its schemas, its body is
 * read once and parsed by its request schema (refusals carry the operation's own codes), and the answer is
 * checked and serialised by its response schema. The handler's input and answer types are the operation's.
 */
import type { FastifyReply, FastifyRequest, FastifySchema, FastifySchemaCompiler, FastifySerializerCompiler, RouteShorthandOptionsWithHandler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { parseInput, type Operation } from '@iris/shared';
import { readBody } from './request-body.js';
import type { RequestContext } from './request-context.js';

type OutputOf<S> = S extends z.ZodTypeAny ? z.output<S> : Record<string, never>;

/** The operation's parsed body (undefined for an operation without one). */
export type InputOf<O extends Operation> = O extends { body: { schema: infer S } } ? (S extends z.ZodTypeAny ? z.output<S> : never) : undefined;
export type ParamsOf<O extends Operation> = O extends { params: infer P } ? OutputOf<P> : Record<string, never>;
export type QueryOf<O extends Operation> = O extends { query: infer Q } ? OutputOf<Q> : Record<string, never>;

/** An answer as the response schema reads it; the reply itself where the operation answers 204 or a file. */
export type AnswerOf<O extends Operation> = O extends { response: infer R extends z.ZodTypeAny }
  ? z.input<R> | (O extends { alsoNoContent: true } | { responseMediaType: string } ? FastifyReply : never)
  : FastifyReply;

export interface Call<O extends Operation> {
  input: InputOf<O>;
  params: ParamsOf<O>;
  query: QueryOf<O>;
  ctx: RequestContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

export type Handler<O extends Operation, A> = (call: Call<O>) => Promise<A>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract operation a route serves (set by `serve`, checked when the route is added). */
    operation?: Operation;
    /** A route that only refuses (answers an error, reads no input, has no answer shape): no operation. */
    refusal?: true;
  }
}

/** Binds a route to `operation`; the handler answers in the operation's response type. */
export function serve<const O extends Operation>(operation: O, handler: Handler<O, AnswerOf<O>>): RouteShorthandOptionsWithHandler {
  return bind(operation, operation.response, handler);
}

/**
 * Binds a route to `operation` where the route serves one of the operation's answer shapes (the classify
 * operation answers in the classify or the tagging shape, by service: one route each). The answer is checked
 * by `response` alone, never by trying the members of a union.
 */
export function serveAs<const O extends Operation, R extends z.ZodTypeAny>(
  operation: O,
  response: R & (z.input<R> extends AnswerOf<O> ? unknown : never),
  handler: Handler<O, z.input<R>>,
): RouteShorthandOptionsWithHandler {
  return bind(operation, response, handler);
}

function bind<O extends Operation>(operation: O, response: z.ZodTypeAny | null, handler: Handler<O, unknown>): RouteShorthandOptionsWithHandler {
  const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema }) => (data) => {
    try {
      return { value: parseInput(schema as z.ZodTypeAny, operation, data) };
    } catch (err) {
      return { error: err as Error };
    }
  };
  const answers = response && !operation.responseMediaType;
  return {
    config: { operation },
    schema: {
      ...(operation.params ? { params: operation.params } : {}),
      ...(operation.query ? { querystring: operation.query.passthrough() } : {}),
      ...(answers ? { response: { [operation.status ?? 200]: response } } : {}),
    },
    validatorCompiler,
    // Parses the answer with the response schema (an answer that breaks it is a 500), then writes it as JSON.
    serializerCompiler: serializerCompiler as FastifySerializerCompiler<FastifySchema>,
    handler: async function servedRoute(request: FastifyRequest, reply: FastifyReply) {
      return handler({
        input: (await parsedBody(operation, request)) as InputOf<O>,
        params: request.params as ParamsOf<O>,
        query: request.query as QueryOf<O>,
        ctx: request.ctx,
        request,
        reply,
      });
    },
  };
}

/** The body (body fields over query parameters, file parts by field) parsed by the operation's request schema. */
async function parsedBody(operation: Operation, request: FastifyRequest): Promise<unknown> {
  if (!operation.body) return undefined;
  const body = await readBody(request, { tmpDir: request.server.config.uploadDir });
  const values: Record<string, unknown> = { ...body.fields };
  for (const file of body.files) values[file.field] = file;
  return parseInput(operation.body.schema, operation, values);
}

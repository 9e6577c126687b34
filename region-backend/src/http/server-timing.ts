/**
 * Where a request's time went, answered as a `Server-Timing` header (`body;dur=1.2, decode;dur=3.4, …,
 * backend;dur=20.1`): reading the body, decoding, waiting for an inference thread, running on it. The edge adds
 * its own total, so a slow call can be placed without a trace system (docs/observability.md).
 */
import type { FastifyInstance } from 'fastify';

export class ServerTimings {
  private readonly stages = new Map<string, number>();

  /** Adds `ms` to `stage` (a stage met twice, such as two model tasks, sums). */
  add(stage: string, ms: number): void {
    this.stages.set(stage, (this.stages.get(stage) ?? 0) + ms);
  }

  /** Runs `work`, adding its time to `stage` whether it succeeds or not. */
  async time<T>(stage: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.add(stage, performance.now() - started);
    }
  }

  header(totalMs: number): string {
    return [...this.stages, ['backend', totalMs] as const].map(([stage, ms]) => `${stage};dur=${ms.toFixed(1)}`).join(', ');
  }
}

export function registerServerTiming(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    // Requests the edge did not sign (health, metrics) have no context.
    if (request.ctx) reply.header('server-timing', request.ctx.timings.header(performance.now() - request.ctx.startedAt));
    return payload;
  });
}

/**
 * Event-loop watchdog. The main thread stamps a shared clock every 250 ms; a small watchdog thread reads it.
 * When the loop has not stamped for longer than `IRIS_WATCHDOG_MS`, the loop is stuck (a CPU trap in code
 * that should have been off the loop, a native call that never returns): the thread writes why to stderr
 * and kills the process with SIGKILL (a blocked loop cannot run a SIGTERM handler), so its supervisor
 * starts a fresh one. `/livez` answers 503 once the loop has lagged past the threshold, 200 otherwise.
 */
import { Worker } from 'node:worker_threads';
import fp from 'fastify-plugin';

const TICK_MS = 250;

// Plain JavaScript evaluated in the thread: no loader, no imports beyond node's own.
const WATCHDOG_THREAD = `
const { workerData } = require('node:worker_threads');
const clock = new BigInt64Array(workerData.clock);
const { thresholdMs, tickMs } = workerData;
setInterval(() => {
  const last = Number(Atomics.load(clock, 0));
  const stuck = Date.now() - last;
  if (last > 0 && stuck > thresholdMs) {
    require('node:fs').writeSync(2, JSON.stringify({ level: 60, time: Date.now(), msg: 'event loop blocked for ' + stuck + ' ms (limit ' + thresholdMs + ' ms): exiting so the supervisor restarts this backend' }) + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}, tickMs);
`;

export interface LoopHealth {
  /** Longest gap between two stamps seen so far, minus the tick, in ms. */
  worstLagMs: number;
  /** Gap of the latest stamp, minus the tick. */
  lastLagMs: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    loopHealth: LoopHealth;
  }
}

export const loopWatchdogPlugin = fp(
  async (app, opts: { thresholdMs: number }) => {
    const health: LoopHealth = { worstLagMs: 0, lastLagMs: 0 };
    app.decorate('loopHealth', health);
    app.get('/livez', async (_request, reply) => {
      const ok = opts.thresholdMs <= 0 || health.lastLagMs < opts.thresholdMs;
      return reply.code(ok ? 200 : 503).send({ ok, loop_lag_ms: Math.round(health.lastLagMs), worst_loop_lag_ms: Math.round(health.worstLagMs) });
    });
    const clock = new BigInt64Array(new SharedArrayBuffer(8));
    let last = Date.now();
    const stamp = () => {
      const now = Date.now();
      health.lastLagMs = Math.max(0, now - last - TICK_MS);
      health.worstLagMs = Math.max(health.worstLagMs, health.lastLagMs);
      last = now;
      Atomics.store(clock, 0, BigInt(now));
    };
    stamp();
    const timer = setInterval(stamp, TICK_MS).unref();
    let thread: Worker | null = null;
    if (opts.thresholdMs > 0) {
      thread = new Worker(WATCHDOG_THREAD, { eval: true, workerData: { clock: clock.buffer, thresholdMs: opts.thresholdMs, tickMs: TICK_MS } });
      thread.unref();
    }
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await thread?.terminate();
    });
  },
  { name: 'loop-watchdog' },
);

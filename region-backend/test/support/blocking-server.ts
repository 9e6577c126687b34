/**
 * A child process for the watchdog test: Fastify with the loop watchdog, and a `/block` route that spins the
 * event loop for ever (a stand-in for any CPU trap on the loop). Prints its port on stdout.
 */
import Fastify from 'fastify';
import { loopWatchdogPlugin } from '../../src/plugins/loop-watchdog.plugin.js';

const app = Fastify();
await app.register(loopWatchdogPlugin, { thresholdMs: Number(process.argv[2] ?? 1000) });
app.get('/block', async () => {
  for (;;) {
    // stuck on purpose
  }
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);

/**
 * The edge's added latency: the same cheap call (list image sets) through the edge (auth, registry,
 * signing, forwarding under wrangler dev) and straight to the backend (with a valid internal signature),
 * interleaved in one run so machine noise hits both alike.
 */
import { signInternal } from '@iris/shared';
import { percentile, printTable } from '../../scripts/table.js';
import { startPlatformFixture } from '../e2e/platform-fixture.js';

const ROUNDS = Number(process.env.IRIS_BENCH_ROUNDS ?? 400);

export default async function run(): Promise<void> {
  const platform = await startPlatformFixture();
  try {
    const path = '/get_image_sets/_0000014';
    const viaEdge = async () => {
      const res = await platform.call(path);
      if (res.status !== 200) throw new Error(`edge answered ${res.status}`);
      await res.arrayBuffer();
    };
    const direct = async () => {
      const headers = await signInternal(platform.internalSecrets['cn-east'], {
        method: 'GET',
        pathWithQuery: path,
        accountId: platform.devAccount.account_id,
        context: { requestId: 'bench', lang: 'en' },
      });
      const res = await fetch(`${platform.backendUrls['cn-east']}${path}`, { headers });
      if (res.status !== 200) throw new Error(`backend answered ${res.status}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 20; i++) await Promise.all([viaEdge(), direct()]); // warm-up
    const edgeMs: number[] = [];
    const directMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (const [fn, out] of (i % 2 ? [[viaEdge, edgeMs], [direct, directMs]] : [[direct, directMs], [viaEdge, edgeMs]]) as [() => Promise<void>, number[]][]) {
        const started = performance.now();
        await fn();
        out.push(performance.now() - started);
      }
    }
    printTable(
      ['path', 'calls', 'p50 ms', 'p99 ms'],
      [
        ['through the edge (wrangler dev)', ROUNDS, percentile(edgeMs, 50), percentile(edgeMs, 99)],
        ['straight to the backend', ROUNDS, percentile(directMs, 50), percentile(directMs, 99)],
        ['added by the edge', '', percentile(edgeMs, 50) - percentile(directMs, 50), percentile(edgeMs, 99) - percentile(directMs, 99)],
      ],
    );
  } finally {
    await platform.stop();
  }
}

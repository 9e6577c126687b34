import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../test/support/blocking-server.ts', import.meta.url));

describe('event-loop watchdog', () => {
  it('answers /livez while the loop is free, and kills the process once the loop is blocked past the threshold', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, '1500'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = once(child, 'exit');
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    const base = `http://127.0.0.1:${first.toString().trim()}`;

    const live = await fetch(`${base}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ ok: true });

    const blockedAt = Date.now();
    void fetch(`${base}/block`).catch(() => undefined);
    const [code, signal] = (await exited) as [number | null, string | null];
    const took = Date.now() - blockedAt;
    expect(signal).toBe('SIGKILL');
    expect(code).toBeNull();
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(15_000);
    expect(stderr).toMatch(/event loop blocked for \d+ ms \(limit 1500 ms\)/);
  });
});

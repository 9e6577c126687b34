import type { BatchItem } from '../task-protocol.js';

/** Per-payload results of a batched task (an Error for a payload that failed) as the pool's batch items. */
export function batchItems(results: unknown[]): BatchItem[] {
  return results.map((r) => {
    if (!(r instanceof Error)) return { ok: true, result: r };
    const code = (r as { code?: unknown }).code;
    return { ok: false, error: { message: r.message, name: r.name, ...(typeof code === 'string' ? { code } : {}) } };
  });
}
